/* placement_probe.c: an ABI 1.2 test strategy that writes down what the host tells it, for the
** Kafka agent's suite: the purpose of every rank call, and every placed call with the figures of
** the directory it names. It ranks as Kafka does (fewest partitions first, ties in log.dirs order)
** and scores each directory with its partition count ("partitions").
**
** Options:
**   journal=<file>         each call appends one line to the file, as tests/abi's
**                          recent_placements does:
**                            rank <purpose> <topic>-<partition>
**                            placed <topic>-<partition> <dir> <partition_count>
**                                   <topic_partition_count> <expected_bytes>
**                          (purpose PLACE, VALIDATE, PREVIEW, MOVE, or "unknown" from a 1.0 or
**                          1.1 host)
**   rank.fails=true        a rank with purpose PLACE returns LDS_ERR_INTERNAL after writing its
**                          line, so that every placement falls back to the host's own order (the
**                          load's dry run, VALIDATE, still gets an answer)
**   placed.sleep.ms=<n>    placed sleeps n milliseconds before writing its line
*/
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <lds/logdir_strategy.h>

#define MAX_PATH_TEXT 512

typedef struct placement_probe {
  pthread_mutex_t mu; /* one journal line at a time */
  char journal[MAX_PATH_TEXT];
  int rank_fails;
  long placed_sleep_ms;
} placement_probe;

static void set_error(char* error, uint32_t error_cap, const char* text) {
  if (error == NULL || error_cap == 0) return;
  (void)snprintf(error, error_cap, "%s", text);
}

static void write_line(placement_probe* self, const char* line) {
  FILE* out;
  if (self->journal[0] == '\0') return;
  pthread_mutex_lock(&self->mu);
  out = fopen(self->journal, "a");
  if (out != NULL) {
    (void)fputs(line, out);
    (void)fclose(out);
  }
  pthread_mutex_unlock(&self->mu);
}

/* Reads one option into self; 0 when the key is unknown or the value is not one it takes. */
static int read_option(placement_probe* self, const char* key, const char* value) {
  if (strcmp(key, "journal") == 0) {
    (void)snprintf(self->journal, sizeof self->journal, "%s", value);
    return 1;
  }
  if (strcmp(key, "rank.fails") == 0) {
    self->rank_fails = strcmp(value, "true") == 0;
    return self->rank_fails || strcmp(value, "false") == 0;
  }
  if (strcmp(key, "placed.sleep.ms") == 0) {
    char* end = NULL;
    const long ms = strtol(value, &end, 10);
    self->placed_sleep_ms = ms;
    return end != value && *end == '\0' && ms >= 0;
  }
  return 0;
}

static int32_t probe_create(const lds_host_api* host, const lds_config_entry* config,
                            uint32_t config_count, void** instance, char* error,
                            uint32_t error_cap) {
  placement_probe* self;
  uint32_t i;
  (void)host;
  if (instance == NULL || (config == NULL && config_count > 0)) {
    set_error(error, error_cap, "placement_probe: create was called with a NULL pointer");
    return LDS_ERR_INVALID_ARGUMENT;
  }
  self = (placement_probe*)calloc(1, sizeof *self);
  if (self == NULL) {
    set_error(error, error_cap, "placement_probe: out of memory");
    return LDS_ERR_INTERNAL;
  }
  for (i = 0; i < config_count; ++i) {
    const char* key = config[i].key != NULL ? config[i].key : "";
    const char* value = config[i].value != NULL ? config[i].value : "";
    if (!read_option(self, key, value)) {
      char text[256];
      (void)snprintf(text, sizeof text, "placement_probe: bad option %s=%s", key, value);
      set_error(error, error_cap, text);
      free(self);
      return LDS_ERR_INVALID_ARGUMENT;
    }
  }
  pthread_mutex_init(&self->mu, NULL);
  *instance = self;
  return LDS_OK;
}

static void probe_destroy(void* instance) {
  placement_probe* self = (placement_probe*)instance;
  if (self == NULL) return;
  pthread_mutex_destroy(&self->mu);
  free(self);
}

static const char* purpose_name(const lds_rank_args* args) {
  static const char* const names[] = {"PLACE", "VALIDATE", "PREVIEW", "MOVE"};
  if (!LDS_RANK_ARGS_HAVE_PURPOSE(args)) return "unknown";
  return args->purpose < 4 ? names[args->purpose] : "reserved";
}

static int32_t probe_rank(void* instance, lds_rank_args* args) {
  placement_probe* self = (placement_probe*)instance;
  char line[MAX_PATH_TEXT + 64];
  uint32_t len = 0;
  uint32_t k;
  if (self == NULL || args == NULL || args->request == NULL || args->request->topic == NULL ||
      (args->dir_count > 0 && (args->dirs == NULL || args->order == NULL))) {
    if (args != NULL) set_error(args->error, args->error_cap, "placement_probe: bad call");
    return LDS_ERR_INVALID_ARGUMENT;
  }
  args->order_len = 0;
  (void)snprintf(line, sizeof line, "rank %s %s-%d\n", purpose_name(args), args->request->topic,
                 (int)args->request->partition);
  write_line(self, line);
  if (self->rank_fails && LDS_RANK_ARGS_HAVE_PURPOSE(args) && args->purpose == LDS_RANK_PLACE) {
    set_error(args->error, args->error_cap, "placement_probe: rank.fails=true");
    return LDS_ERR_INTERNAL;
  }
  /* Fewest partitions first, ties in log.dirs order: a stable selection. */
  while (len < args->dir_count) {
    uint32_t best = args->dir_count;
    for (k = 0; k < args->dir_count; ++k) {
      uint32_t j;
      int taken = 0;
      for (j = 0; j < len; ++j) taken |= args->order[j] == k;
      if (!taken && (best == args->dir_count || LDS_DIR_AT(args, k)->partition_count <
                                                    LDS_DIR_AT(args, best)->partition_count)) {
        best = k;
      }
    }
    args->order[len++] = best;
  }
  if (LDS_RANK_ARGS_HAVE_PURPOSE(args)) {
    for (k = 0; k < args->dir_count; ++k) {
      args->scores[k] = (double)LDS_DIR_AT(args, k)->partition_count;
    }
  }
  args->order_len = len;
  if (len == 0) {
    set_error(args->error, args->error_cap, "no log directory");
    return LDS_ERR_NO_ELIGIBLE_DIR;
  }
  return LDS_OK;
}

static void probe_placed(void* instance, const lds_request* request, const lds_dir* dir) {
  placement_probe* self = (placement_probe*)instance;
  char line[2 * MAX_PATH_TEXT];
  if (self == NULL || request == NULL || request->topic == NULL || dir == NULL ||
      dir->path == NULL) {
    return;
  }
  if (self->placed_sleep_ms > 0) {
    struct timespec left;
    left.tv_sec = self->placed_sleep_ms / 1000;
    left.tv_nsec = (self->placed_sleep_ms % 1000) * 1000000L;
    while (nanosleep(&left, &left) != 0 && errno == EINTR) continue;
  }
  (void)snprintf(line, sizeof line, "placed %s-%d %s %u %u %llu\n", request->topic,
                 (int)request->partition, dir->path, (unsigned)dir->partition_count,
                 (unsigned)dir->topic_partition_count, (unsigned long long)request->expected_bytes);
  write_line(self, line);
}

static const lds_strategy placement_probe_strategy = {
    .struct_size = sizeof(lds_strategy),
    .abi_major = LDS_ABI_MAJOR,
    .abi_minor = LDS_ABI_MINOR,
    .name = "placement_probe",
    .version = "1.2.0",
    .description = "Writes down each rank's purpose and each placed call; ranks as Kafka does.",
    .capabilities = 0,
    .create = probe_create,
    .destroy = probe_destroy,
    .rank = probe_rank,
    .placed = probe_placed,
    .score_name = "partitions",
};

LDS_EXPORT const lds_strategy* lds_strategy_get(uint32_t host_abi_major, uint32_t host_abi_minor) {
  (void)host_abi_minor;
  return host_abi_major == LDS_ABI_MAJOR ? &placement_probe_strategy : NULL;
}
