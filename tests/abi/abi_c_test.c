/* abi_c_test.c: a strategy plugin in plain C99, proving abi/logdir_strategy.h is usable from C.
**
** Built with -std=c99 -Wall -Wextra -Werror -pedantic into liblds_c_example.so, which the contract
** suite runs through every conformance check. If the header stops being valid C, the build fails.
**
** Strategy "c_example": rank by partition_count ascending; ties keep the input (log.dirs) order.
** Option "max.partitions" (default 0, no limit): a directory already holding that many partitions
** is ineligible. Any other key is refused.
*/
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lds/logdir_strategy.h>

/* The ABI 1.0 sizes: a newer host may pass larger structs, never smaller ones. */
#define RANK_ARGS_V1_SIZE (offsetof(lds_rank_args, error_cap) + sizeof(uint32_t))
#define HOST_API_V1_SIZE (offsetof(lds_host_api, log_enabled) + sizeof(void (*)(void)))
#define DIR_V1_SIZE (offsetof(lds_dir, topic_partition_count) + sizeof(uint32_t))

typedef struct c_example {
  const lds_host_api* host;
  uint32_t max_partitions; /* 0: no limit */
} c_example;

/* Writes one sentence into error, truncated to error_cap and always NUL-terminated within it. */
static void write_error(char* error, uint32_t error_cap, const char* format, ...) {
  va_list args;
  if (error == NULL || error_cap == 0) return;
  va_start(args, format);
  (void)vsnprintf(error, (size_t)error_cap, format, args);
  va_end(args);
}

static void host_log(const lds_host_api* host, int32_t level, const char* message) {
  if (host == NULL || host->struct_size < HOST_API_V1_SIZE || host->log == NULL) return;
  if (host->log_enabled != NULL && !host->log_enabled(host->context, level)) return;
  host->log(host->context, level, message);
}

/* Parses a decimal uint32_t; returns 0 on success. */
static int parse_uint32(const char* text, uint32_t* out) {
  char* end = NULL;
  unsigned long value;
  if (text == NULL || *text < '0' || *text > '9') return -1;
  errno = 0;
  value = strtoul(text, &end, 10);
  if (errno != 0 || *end != '\0' || value > 0xFFFFFFFFul) return -1;
  *out = (uint32_t)value;
  return 0;
}

static int32_t c_example_create(const lds_host_api* host, const lds_config_entry* config,
                                uint32_t config_count, void** instance, char* error,
                                uint32_t error_cap) {
  c_example settings;
  c_example* created;
  uint32_t i;
  char message[96];

  if (instance == NULL || (config == NULL && config_count > 0)) {
    write_error(error, error_cap, "c_example: create was called with a NULL pointer");
    return LDS_ERR_INVALID_ARGUMENT;
  }
  settings.host = host;
  settings.max_partitions = 0;
  for (i = 0; i < config_count; ++i) {
    const char* key = config[i].key != NULL ? config[i].key : "(null)";
    const char* value = config[i].value != NULL ? config[i].value : "(null)";
    if (strcmp(key, "max.partitions") == 0) {
      if (parse_uint32(config[i].value, &settings.max_partitions) != 0) {
        write_error(error, error_cap,
                    "c_example: invalid value '%s' for max.partitions; expected a count", value);
        return LDS_ERR_INVALID_ARGUMENT;
      }
    } else {
      write_error(error, error_cap, "c_example: unknown option '%s' (value '%s')", key, value);
      return LDS_ERR_INVALID_ARGUMENT;
    }
  }
  created = (c_example*)malloc(sizeof *created);
  if (created == NULL) {
    write_error(error, error_cap, "c_example: out of memory");
    return LDS_ERR_INTERNAL;
  }
  *created = settings;
  (void)snprintf(message, sizeof message, "c_example created with max.partitions=%lu",
                 (unsigned long)created->max_partitions);
  host_log(host, LDS_LOG_DEBUG, message);
  *instance = created;
  return LDS_OK;
}

static void c_example_destroy(void* instance) { free(instance); }

static int32_t c_example_rank(void* instance, lds_rank_args* args) {
  const c_example* self = (const c_example*)instance;
  uint32_t i;
  uint32_t len = 0;

  if (args == NULL) return LDS_ERR_INVALID_ARGUMENT;
  if (self == NULL || args->struct_size < RANK_ARGS_V1_SIZE || args->request == NULL ||
      (args->dir_count > 0 &&
       (args->dirs == NULL || args->order == NULL || args->dir_stride < DIR_V1_SIZE))) {
    write_error(args->error, args->error_cap, "c_example: malformed rank arguments");
    return LDS_ERR_INVALID_ARGUMENT;
  }
  /* Insertion sort of the eligible indices: stable, so ties keep log.dirs order. */
  for (i = 0; i < args->dir_count; ++i) {
    const uint32_t count = LDS_DIR_AT(args, i)->partition_count;
    uint32_t pos = len;
    if (self->max_partitions != 0 && count >= self->max_partitions) continue;
    while (pos > 0 && LDS_DIR_AT(args, args->order[pos - 1])->partition_count > count) {
      args->order[pos] = args->order[pos - 1];
      --pos;
    }
    args->order[pos] = i;
    ++len;
  }
  args->order_len = len;
  if (len == 0) {
    if (args->dir_count == 0) {
      write_error(args->error, args->error_cap, "c_example: no log directories to choose from");
    } else {
      write_error(args->error, args->error_cap,
                  "c_example: every log directory holds at least max.partitions=%lu partitions",
                  (unsigned long)self->max_partitions);
    }
    return LDS_ERR_NO_ELIGIBLE_DIR;
  }
  return LDS_OK;
}

static const lds_strategy c_example_strategy = {
    .struct_size = sizeof(lds_strategy),
    .abi_major = LDS_ABI_MAJOR,
    .abi_minor = LDS_ABI_MINOR,
    .name = "c_example",
    .version = "1.0.0",
    .description = "Fewest partitions first, written in plain C as the ABI's C test.",
    .capabilities = LDS_CAP_DETERMINISTIC,
    .create = c_example_create,
    .destroy = c_example_destroy,
    .rank = c_example_rank,
};

LDS_EXPORT const lds_strategy* lds_strategy_get(uint32_t host_abi_major, uint32_t host_abi_minor) {
  (void)host_abi_minor;
  return host_abi_major == LDS_ABI_MAJOR ? &c_example_strategy : NULL;
}
