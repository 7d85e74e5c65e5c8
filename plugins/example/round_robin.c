/* round_robin.c: an example strategy that keeps state: each placement starts one directory further
** along log.dirs than the last, as HDFS's RoundRobinVolumeChoosingPolicy and ClickHouse's
** round_robin volume policy do. Cordoned directories are never ranked.
**
** It shows what a stateful plugin must do:
**   - It does not declare LDS_CAP_DETERMINISTIC: the same candidates get a different answer once a
**     partition was placed, so `lds-host check-plugin` checks every answer for validity instead of
**     comparing them.
**   - Its one piece of state, the turn counter, is a C11 atomic: rank and placed run on many
**     threads at once.
**   - On an ABI 1.2 host it keeps its state in placed: the turn moves on only when a partition was
**     really created, so the dry run of a swap, `create --dry-run` and the balancer's destination
**     calls (any purpose but LDS_RANK_PLACE) never shift the next placement, and rank, which only
**     reads the turn, answers them all alike.
**   - A 1.0 or 1.1 host neither says why it ranks nor calls placed, so there every rank call takes
**     a turn, including the ones the host discards; round robin stays fair over many placements.
**
** Build it as C11 (for <stdatomic.h>) with lds_add_strategy_plugin, as plugins/example/ does.
** It has no options; any key is refused so that a typo is caught.
*/
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <lds/logdir_strategy.h>

typedef struct round_robin {
  atomic_uint_fast64_t turn; /* placements ranked so far; where the next one starts */
} round_robin;

static void set_error(char* error, uint32_t error_cap, const char* format, ...) {
  va_list args;
  if (error == NULL || error_cap == 0) return;
  va_start(args, format);
  (void)vsnprintf(error, error_cap, format, args);
  va_end(args);
}

static int32_t round_robin_create(const lds_host_api* host, const lds_config_entry* config,
                                  uint32_t config_count, void** instance, char* error,
                                  uint32_t error_cap) {
  round_robin* self;
  (void)host;
  if (instance == NULL || (config == NULL && config_count > 0)) {
    set_error(error, error_cap, "round_robin: create was called with a NULL pointer");
    return LDS_ERR_INVALID_ARGUMENT;
  }
  if (config_count > 0) {
    set_error(error, error_cap, "round_robin: unknown option '%s' (it has no options)",
              config[0].key != NULL ? config[0].key : "(null)");
    return LDS_ERR_INVALID_ARGUMENT;
  }
  self = (round_robin*)malloc(sizeof *self);
  if (self == NULL) {
    set_error(error, error_cap, "round_robin: out of memory");
    return LDS_ERR_INTERNAL;
  }
  atomic_init(&self->turn, 0);
  *instance = self;
  return LDS_OK;
}

static void round_robin_destroy(void* instance) { free(instance); }

/* Called from many threads at once: the only shared write is one atomic increment. */
static int32_t round_robin_rank(void* instance, lds_rank_args* args) {
  round_robin* self = (round_robin*)instance;
  uint32_t start;
  uint32_t k;
  uint32_t len = 0;

  if (self == NULL || args == NULL || args->request == NULL ||
      (args->dir_count > 0 && (args->dirs == NULL || args->order == NULL))) {
    if (args != NULL) set_error(args->error, args->error_cap, "round_robin: malformed rank call");
    return LDS_ERR_INVALID_ARGUMENT;
  }
  args->order_len = 0;
  if (args->dir_count == 0) {
    set_error(args->error, args->error_cap, "round_robin: no log directories to choose from");
    return LDS_ERR_NO_ELIGIBLE_DIR;
  }
  /* LDS_RANK_ARGS_HAVE_PURPOSE: a 1.2 host, which calls placed; the turn moves on there. */
  start = (uint32_t)((LDS_RANK_ARGS_HAVE_PURPOSE(args) ? atomic_load(&self->turn)
                                                       : atomic_fetch_add(&self->turn, 1)) %
                     args->dir_count);
  /* Every directory once, from this call's turn onwards; read by stride with LDS_DIR_AT. */
  for (k = 0; k < args->dir_count; ++k) {
    const uint32_t i = (start + k) % args->dir_count;
    if ((LDS_DIR_AT(args, i)->flags & LDS_DIR_CORDONED) != 0) continue;
    args->order[len++] = i;
  }
  args->order_len = len;
  if (len == 0) {
    set_error(args->error, args->error_cap, "all log directories are cordoned");
    return LDS_ERR_NO_ELIGIBLE_DIR;
  }
  return LDS_OK;
}

/* A partition was created: the next one starts one directory further along. */
static void round_robin_placed(void* instance, const lds_request* request, const lds_dir* dir) {
  round_robin* self = (round_robin*)instance;
  (void)request;
  (void)dir;
  if (self != NULL) atomic_fetch_add(&self->turn, 1);
}

static const lds_strategy round_robin_strategy = {
    .struct_size = sizeof(lds_strategy),
    .abi_major = LDS_ABI_MAJOR,
    .abi_minor = LDS_ABI_MINOR,
    .name = "round_robin",
    .version = "1.2.0",
    .description =
        "Each new partition starts one log directory further along; never a cordoned "
        "directory.",
    /* Not LDS_CAP_DETERMINISTIC: the answer depends on how many partitions came before. */
    .capabilities = LDS_CAP_HONORS_CORDON,
    .create = round_robin_create,
    .destroy = round_robin_destroy,
    .rank = round_robin_rank,
    .placed = round_robin_placed,
    .score_name = NULL,
};

LDS_EXPORT const lds_strategy* lds_strategy_get(uint32_t host_abi_major, uint32_t host_abi_minor) {
  (void)host_abi_minor; /* it reads no field of a later minor, so it serves every 1.x host */
  return host_abi_major == LDS_ABI_MAJOR ? &round_robin_strategy : NULL;
}
