/* needs_rates.c: a strategy that cannot work without ABI 1.1's append rates, so it refuses a 1.0
** host in lds_strategy_get, cleanly, as abi/logdir_strategy.h says such a plugin must.
**
** Strategy "needs_rates": the least busy directory first (lds_dir.bytes_in_per_sec ascending); a
** directory whose rate is unknown ranks after every known one; ties keep log.dirs order. It has no
** options. Built as C99 against this build's header.
*/
#include <stddef.h>
#include <stdio.h>

#include <lds/logdir_strategy.h>

static int instance_token; /* a non-NULL instance; the strategy keeps no state */

static void set_error(char* error, uint32_t error_cap, const char* text) {
  if (error != NULL && error_cap > 0) (void)snprintf(error, error_cap, "%s", text);
}

static int32_t needs_rates_create(const lds_host_api* host, const lds_config_entry* config,
                                  uint32_t config_count, void** instance, char* error,
                                  uint32_t error_cap) {
  (void)host;
  (void)config;
  if (instance == NULL) return LDS_ERR_INVALID_ARGUMENT;
  if (config_count > 0) {
    if (error != NULL && error_cap > 0) {
      (void)snprintf(error, error_cap, "needs_rates: unknown option '%s' (it has no options)",
                     config != NULL && config[0].key != NULL ? config[0].key : "(null)");
    }
    return LDS_ERR_INVALID_ARGUMENT;
  }
  *instance = &instance_token;
  return LDS_OK;
}

static void needs_rates_destroy(void* instance) { (void)instance; }

/* The rate as a sort key: unknown (or not sent) sorts after every known rate. */
static uint64_t rate_key(const lds_dir* dir, int* known) {
  *known = LDS_HAS_FIELD(dir, lds_dir, bytes_in_per_sec) && !(dir->flags & LDS_DIR_RATE_UNKNOWN);
  return *known ? dir->bytes_in_per_sec : 0;
}

static int ranks_before(const lds_dir* a, const lds_dir* b) {
  int a_known;
  int b_known;
  const uint64_t a_rate = rate_key(a, &a_known);
  const uint64_t b_rate = rate_key(b, &b_known);
  if (a_known != b_known) return a_known;
  return a_rate < b_rate;
}

static int32_t needs_rates_rank(void* instance, lds_rank_args* args) {
  uint32_t i;
  uint32_t len = 0;
  if (instance == NULL || args == NULL || args->request == NULL ||
      (args->dir_count > 0 && (args->dirs == NULL || args->order == NULL))) {
    return LDS_ERR_INVALID_ARGUMENT;
  }
  for (i = 0; i < args->dir_count; ++i) {
    const lds_dir* dir = LDS_DIR_AT(args, i);
    uint32_t pos = len;
    while (pos > 0 && ranks_before(dir, LDS_DIR_AT(args, args->order[pos - 1]))) {
      args->order[pos] = args->order[pos - 1];
      --pos;
    }
    args->order[pos] = i;
    ++len;
  }
  args->order_len = len;
  if (len == 0) {
    set_error(args->error, args->error_cap, "needs_rates: no log directories to choose from");
    return LDS_ERR_NO_ELIGIBLE_DIR;
  }
  return LDS_OK;
}

static const lds_strategy needs_rates_strategy = {
    sizeof(lds_strategy),
    LDS_ABI_MAJOR,
    LDS_ABI_MINOR,
    "needs_rates",
    "1.0.0",
    "The least busy log directory first, by its append rate (needs ABI 1.1).",
    LDS_CAP_DETERMINISTIC,
    needs_rates_create,
    needs_rates_destroy,
    needs_rates_rank,
};

/* Minor 1 is the first whose lds_dir carries bytes_in_per_sec: an older host is refused here,
 *before
 ** anything else happens, and the host says so in one sentence. */
LDS_EXPORT const lds_strategy* lds_strategy_get(uint32_t host_abi_major, uint32_t host_abi_minor) {
  if (host_abi_major != LDS_ABI_MAJOR || host_abi_minor < 1) return NULL;
  return &needs_rates_strategy;
}
