/* recent_placements.c: a stateful ABI 1.2 test strategy. It ranks the log directories by how many
** partitions it has seen placed in each, fewest first (ties in log.dirs order), and learns that
** only from placed, so no VALIDATE, PREVIEW or MOVE call can change where the next partition goes.
** Its scores are those counts ("placements seen").
**
** Option journal=<file>: every placed call appends one line "placed <topic>-<partition> <dir>" to
** the file, and every rank call "rank <purpose> <topic>-<partition>" (purpose PLACE, VALIDATE,
** PREVIEW, MOVE, or "unknown" from a 1.0 or 1.1 host), so a test can compare what the plugin was
** told with what the host did.
**
** On a 1.0 or 1.1 host (no purpose, no placed) it counts in rank instead, as a 1.1 stateful
** plugin had to: every rank call, discarded or not, shifts the next answer.
*/
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lds/logdir_strategy.h>

#define MAX_DIRS 64
#define MAX_PATH_TEXT 512

typedef struct recent_placements {
  pthread_mutex_t mu; /* guards everything below */
  char paths[MAX_DIRS][MAX_PATH_TEXT];
  uint64_t counts[MAX_DIRS];
  uint32_t known;
  char journal[MAX_PATH_TEXT];
} recent_placements;

static void set_error(char* error, uint32_t error_cap, const char* text) {
  if (error == NULL || error_cap == 0) return;
  (void)snprintf(error, error_cap, "%s", text);
}

/* The slot of `path`, added when new; MAX_DIRS when the table is full. Called under mu. */
static uint32_t slot_of(recent_placements* self, const char* path) {
  uint32_t i;
  for (i = 0; i < self->known; ++i) {
    if (strncmp(self->paths[i], path, MAX_PATH_TEXT) == 0) return i;
  }
  if (self->known == MAX_DIRS) return MAX_DIRS;
  (void)snprintf(self->paths[self->known], MAX_PATH_TEXT, "%s", path);
  self->counts[self->known] = 0;
  return self->known++;
}

static int32_t recent_create(const lds_host_api* host, const lds_config_entry* config,
                             uint32_t config_count, void** instance, char* error,
                             uint32_t error_cap) {
  recent_placements* self;
  uint32_t i;
  (void)host;
  if (instance == NULL || (config == NULL && config_count > 0)) {
    set_error(error, error_cap, "recent_placements: create was called with a NULL pointer");
    return LDS_ERR_INVALID_ARGUMENT;
  }
  self = (recent_placements*)calloc(1, sizeof *self);
  if (self == NULL) {
    set_error(error, error_cap, "recent_placements: out of memory");
    return LDS_ERR_INTERNAL;
  }
  for (i = 0; i < config_count; ++i) {
    if (config[i].key != NULL && strcmp(config[i].key, "journal") == 0 && config[i].value != NULL) {
      (void)snprintf(self->journal, sizeof self->journal, "%s", config[i].value);
    } else {
      if (error != NULL && error_cap > 0) {
        (void)snprintf(error, error_cap,
                       "recent_placements: unknown option '%s' (it has only journal)",
                       config[i].key != NULL ? config[i].key : "(null)");
      }
      free(self);
      return LDS_ERR_INVALID_ARGUMENT;
    }
  }
  pthread_mutex_init(&self->mu, NULL);
  *instance = self;
  return LDS_OK;
}

static void recent_destroy(void* instance) {
  recent_placements* self = (recent_placements*)instance;
  if (self == NULL) return;
  pthread_mutex_destroy(&self->mu);
  free(self);
}

/* Appends one line to the journal, if there is one. Called under mu. */
static void journal_line(const recent_placements* self, const char* what, const char* detail,
                         const lds_request* request, const char* dir) {
  FILE* out;
  if (self->journal[0] == '\0') return;
  out = fopen(self->journal, "a");
  if (out == NULL) return;
  (void)fprintf(out, "%s %s%s%s-%d%s%s\n", what, detail, detail[0] != '\0' ? " " : "",
                request->topic, (int)request->partition, dir != NULL ? " " : "",
                dir != NULL ? dir : "");
  (void)fclose(out);
}

static const char* purpose_name(const lds_rank_args* args) {
  static const char* const names[] = {"PLACE", "VALIDATE", "PREVIEW", "MOVE"};
  if (!LDS_RANK_ARGS_HAVE_PURPOSE(args)) return "unknown";
  return args->purpose < 4 ? names[args->purpose] : "reserved";
}

static int32_t recent_rank(void* instance, lds_rank_args* args) {
  recent_placements* self = (recent_placements*)instance;
  uint64_t counts[MAX_DIRS];
  uint32_t n;
  uint32_t k;
  uint32_t len = 0;
  const int has_purpose = args != NULL && LDS_RANK_ARGS_HAVE_PURPOSE(args);
  if (self == NULL || args == NULL || args->request == NULL ||
      (args->dir_count > 0 && (args->dirs == NULL || args->order == NULL))) {
    if (args != NULL) set_error(args->error, args->error_cap, "recent_placements: bad call");
    return LDS_ERR_INVALID_ARGUMENT;
  }
  args->order_len = 0;
  n = args->dir_count < MAX_DIRS ? args->dir_count : MAX_DIRS;
  pthread_mutex_lock(&self->mu);
  journal_line(self, "rank", purpose_name(args), args->request, NULL);
  for (k = 0; k < n; ++k) {
    const uint32_t slot = slot_of(self, LDS_DIR_AT(args, k)->path);
    counts[k] = slot < MAX_DIRS ? self->counts[slot] : 0;
  }
  /* Fewest placements first, ties in log.dirs order: a stable selection. */
  for (;;) {
    uint32_t best = n;
    for (k = 0; k < n; ++k) {
      uint32_t j;
      int taken = 0;
      if ((LDS_DIR_AT(args, k)->flags & LDS_DIR_CORDONED) != 0) continue;
      for (j = 0; j < len; ++j) taken |= args->order[j] == k;
      if (!taken && (best == n || counts[k] < counts[best])) best = k;
    }
    if (best == n) break;
    args->order[len++] = best;
  }
  if (!has_purpose && len > 0) {
    /* A 1.0 or 1.1 host: no placed will come, so this answer counts as a placement. */
    const uint32_t slot = slot_of(self, LDS_DIR_AT(args, args->order[0])->path);
    if (slot < MAX_DIRS) ++self->counts[slot];
  }
  pthread_mutex_unlock(&self->mu);
  if (has_purpose) {
    for (k = 0; k < n; ++k) args->scores[k] = (double)counts[k];
  }
  args->order_len = len;
  if (len == 0) {
    set_error(args->error, args->error_cap, "no uncordoned log directory");
    return LDS_ERR_NO_ELIGIBLE_DIR;
  }
  return LDS_OK;
}

static void recent_placed(void* instance, const lds_request* request, const lds_dir* dir) {
  recent_placements* self = (recent_placements*)instance;
  uint32_t slot;
  if (self == NULL || request == NULL || dir == NULL || dir->path == NULL) return;
  pthread_mutex_lock(&self->mu);
  slot = slot_of(self, dir->path);
  if (slot < MAX_DIRS) ++self->counts[slot];
  journal_line(self, "placed", "", request, dir->path);
  pthread_mutex_unlock(&self->mu);
}

static const lds_strategy recent_placements_strategy = {
    .struct_size = sizeof(lds_strategy),
    .abi_major = LDS_ABI_MAJOR,
    .abi_minor = LDS_ABI_MINOR,
    .name = "recent_placements",
    .version = "1.2.0",
    .description = "Fewest partitions placed by this instance first, learned from placed.",
    .capabilities = LDS_CAP_HONORS_CORDON,
    .create = recent_create,
    .destroy = recent_destroy,
    .rank = recent_rank,
    .placed = recent_placed,
    .score_name = "placements seen",
};

LDS_EXPORT const lds_strategy* lds_strategy_get(uint32_t host_abi_major, uint32_t host_abi_minor) {
  (void)host_abi_minor;
  return host_abi_major == LDS_ABI_MAJOR ? &recent_placements_strategy : NULL;
}
