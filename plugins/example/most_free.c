/* most_free.c: an example strategy plugin in plain C, built out of tree against an installed SDK.
**
** Strategy "most_free": the directory with the most free bytes first, where free bytes are what the
** broker may still write minus what it has already promised to partitions placed there but not yet
** written (usable_bytes - reserved_bytes). Cordoned directories are never chosen. Directories whose
** size could not be read come last (still eligible), in log.dirs order. Equal free bytes keep
** log.dirs order.
**
** Option "min.free.bytes" (default 0): a directory with fewer free bytes takes no new partition.
** Any other option is refused, so a typo in the broker config is caught.
*/
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lds/logdir_strategy.h>

typedef struct most_free {
  uint64_t min_free_bytes;
} most_free;

/* Writes one sentence into the host's error buffer, NUL-terminated within error_cap. */
static void set_error(char* error, uint32_t error_cap, const char* format, ...) {
  va_list args;
  if (error == NULL || error_cap == 0) return;
  va_start(args, format);
  (void)vsnprintf(error, (size_t)error_cap, format, args);
  va_end(args);
}

static int32_t most_free_create(const lds_host_api* host, const lds_config_entry* config,
                                uint32_t config_count, void** instance, char* error,
                                uint32_t error_cap) {
  uint64_t min_free_bytes = 0;
  most_free* self;
  uint32_t i;

  if (instance == NULL || (config == NULL && config_count > 0)) {
    set_error(error, error_cap, "most_free: create was called with a NULL pointer");
    return LDS_ERR_INVALID_ARGUMENT;
  }
  for (i = 0; i < config_count; ++i) {
    const char* key = config[i].key != NULL ? config[i].key : "";
    const char* value = config[i].value != NULL ? config[i].value : "";
    char* end = NULL;
    if (strcmp(key, "min.free.bytes") != 0) {
      set_error(error, error_cap, "most_free: unknown option '%s' (value '%s')", key, value);
      return LDS_ERR_INVALID_ARGUMENT;
    }
    errno = 0;
    min_free_bytes = strtoull(value, &end, 10);
    if (value[0] < '0' || value[0] > '9' || *end != '\0' || errno != 0) {
      set_error(error, error_cap, "most_free: min.free.bytes must be a byte count, not '%s'",
                value);
      return LDS_ERR_INVALID_ARGUMENT;
    }
  }
  self = (most_free*)malloc(sizeof *self);
  if (self == NULL) {
    set_error(error, error_cap, "most_free: out of memory");
    return LDS_ERR_INTERNAL;
  }
  self->min_free_bytes = min_free_bytes;
  /* Plugins log through the host, never through a logging library of their own. */
  if (host != NULL && host->log != NULL &&
      (host->log_enabled == NULL || host->log_enabled(host->context, LDS_LOG_INFO))) {
    char message[80];
    (void)snprintf(message, sizeof message, "most_free: min.free.bytes=%llu",
                   (unsigned long long)min_free_bytes);
    host->log(host->context, LDS_LOG_INFO, message);
  }
  *instance = self;
  return LDS_OK;
}

static void most_free_destroy(void* instance) { free(instance); }

static int space_known(const lds_dir* dir) { return (dir->flags & LDS_DIR_SPACE_UNKNOWN) == 0; }

static uint64_t free_bytes(const lds_dir* dir) {
  if (!space_known(dir) || dir->usable_bytes <= dir->reserved_bytes) return 0;
  return dir->usable_bytes - dir->reserved_bytes;
}

/* Whether a ranks strictly before b; a tie answers no, so the sort below keeps log.dirs order. */
static int ranks_before(const lds_dir* a, const lds_dir* b) {
  if (space_known(a) != space_known(b)) return space_known(a);
  return free_bytes(a) > free_bytes(b);
}

/* Called from many threads at once: reads only the instance and args, writes only args. */
static int32_t most_free_rank(void* instance, lds_rank_args* args) {
  const most_free* self = (const most_free*)instance;
  uint32_t i;
  uint32_t len = 0;

  if (self == NULL || args == NULL) return LDS_ERR_INVALID_ARGUMENT;
  for (i = 0; i < args->dir_count; ++i) {
    const lds_dir* dir = LDS_DIR_AT(args, i);
    uint32_t pos = len;
    if ((dir->flags & LDS_DIR_CORDONED) != 0) continue;
    if (space_known(dir) && free_bytes(dir) < self->min_free_bytes) continue;
    /* Insertion sort of the eligible indices, best first. */
    while (pos > 0 && ranks_before(dir, LDS_DIR_AT(args, args->order[pos - 1]))) {
      args->order[pos] = args->order[pos - 1];
      --pos;
    }
    args->order[pos] = i;
    ++len;
  }
  args->order_len = len;
  if (len == 0) {
    set_error(args->error, args->error_cap,
              "most_free: no log directory is uncordoned with min.free.bytes=%llu free",
              (unsigned long long)self->min_free_bytes);
    return LDS_ERR_NO_ELIGIBLE_DIR;
  }
  return LDS_OK;
}

static const lds_strategy most_free_strategy = {
    .struct_size = sizeof(lds_strategy),
    .abi_major = LDS_ABI_MAJOR,
    .abi_minor = LDS_ABI_MINOR,
    .name = "most_free", /* the <name> of liblds_<name>.so and the value that selects it */
    .version = "1.0.0",
    .description = "Most free bytes first (usable minus reserved); never a cordoned directory.",
    .capabilities = LDS_CAP_HONORS_CORDON | LDS_CAP_USES_SPACE | LDS_CAP_USES_RESERVATIONS,
    .create = most_free_create,
    .destroy = most_free_destroy,
    .rank = most_free_rank,
#if LDS_ABI_MINOR >= 2
    /* ABI 1.2: it learns nothing from placements and reports no scores. Guarded, so that the
    ** same source still builds against the 1.0 and 1.1 headers. */
    .placed = NULL,
    .score_name = NULL,
#endif
};

/* The one exported symbol: the descriptor for a host of the same ABI major, NULL otherwise. */
LDS_EXPORT const lds_strategy* lds_strategy_get(uint32_t host_abi_major, uint32_t host_abi_minor) {
  (void)host_abi_minor;
  return host_abi_major == LDS_ABI_MAJOR ? &most_free_strategy : NULL;
}
