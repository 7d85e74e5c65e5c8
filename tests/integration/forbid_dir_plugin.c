/* forbid_dir_plugin.c: the "forbiddir" test strategy, a third-party plugin with a rule of its own:
** the log directory named by option `dir` is never eligible; the others rank by projected fill,
** lowest first. The balancer and drain must honour it as placement does.
*/
#include <stdlib.h>
#include <string.h>

#include <lds/logdir_strategy.h>

static void put_error(char* error, uint32_t cap, const char* text) {
  size_t n;
  if (error == NULL || cap == 0) return;
  n = strlen(text);
  if (n >= cap) n = cap - 1;
  memcpy(error, text, n);
  error[n] = '\0';
}

static int32_t forbid_create(const lds_host_api* host, const lds_config_entry* config,
                             uint32_t count, void** instance, char* error, uint32_t error_cap) {
  uint32_t i;
  char* dir = NULL;
  (void)host;
  for (i = 0; i < count; ++i) {
    if (strcmp(config[i].key, "dir") == 0 && dir == NULL) {
      dir = (char*)malloc(strlen(config[i].value) + 1);
      if (dir == NULL) return LDS_ERR_INTERNAL;
      strcpy(dir, config[i].value);
      continue;
    }
    free(dir);
    put_error(error, error_cap, "strategy forbiddir takes one option, dir");
    return LDS_ERR_INVALID_ARGUMENT;
  }
  *instance = dir;
  return LDS_OK;
}

static void forbid_destroy(void* instance) { free(instance); }

static double fill_of(const lds_dir* d, uint64_t expected) {
  if (d->total_bytes == 0) return 0;
  return (double)(d->total_bytes - d->usable_bytes + d->reserved_bytes + expected) /
         (double)d->total_bytes;
}

static int32_t forbid_rank(void* instance, lds_rank_args* args) {
  const char* forbidden = (const char*)instance;
  uint32_t i, j, n = 0;
  const uint64_t expected = args->request ? args->request->expected_bytes : 0;
  for (i = 0; i < args->dir_count; ++i) {
    const lds_dir* d = LDS_DIR_AT(args, i);
    if (forbidden != NULL && strcmp(d->path, forbidden) == 0) continue;
    args->order[n++] = i;
  }
  /* insertion sort by projected fill: a handful of directories */
  for (i = 1; i < n; ++i) {
    uint32_t v = args->order[i];
    double f = fill_of(LDS_DIR_AT(args, v), expected);
    for (j = i; j > 0 && fill_of(LDS_DIR_AT(args, args->order[j - 1]), expected) > f; --j) {
      args->order[j] = args->order[j - 1];
    }
    args->order[j] = v;
  }
  args->order_len = n;
  if (n == 0) {
    put_error(args->error, args->error_cap, "every log directory is forbidden");
    return LDS_ERR_NO_ELIGIBLE_DIR;
  }
  return LDS_OK;
}

static const lds_strategy descriptor = {
    sizeof(lds_strategy),
    LDS_ABI_MAJOR,
    LDS_ABI_MINOR,
    "forbiddir",
    "1.0",
    "Test strategy: one log directory (option dir) is never eligible; the rest by fill.",
    LDS_CAP_USES_SPACE | LDS_CAP_USES_RESERVATIONS,
    forbid_create,
    forbid_destroy,
    forbid_rank,
    NULL,
    NULL};

LDS_EXPORT const lds_strategy* lds_strategy_get(uint32_t host_abi_major, uint32_t host_abi_minor) {
  (void)host_abi_minor;
  return host_abi_major == LDS_ABI_MAJOR ? &descriptor : NULL;
}
