/* swap_plugin.c: the "swaptest" strategy, built twice (v1, v2) to prove that hot swaps load
** new code.
**
** v1 ranks the candidates in input order, v2 in reverse, so a placement shows which build decided
** it. Option `mode` = ok (default) | invalid: `invalid` makes rank return a duplicate index, which
** the host must refuse at the dry run. Any other option is refused at create.
*/
#include <string.h>

#include <lds/logdir_strategy.h>

#ifndef SWAP_VERSION
#error "SWAP_VERSION must be defined"
#endif

static char token; /* the instance handle when mode=invalid; NULL means mode=ok */

static void put_error(char* error, uint32_t cap, const char* text) {
  size_t n;
  if (error == NULL || cap == 0) return;
  n = strlen(text);
  if (n >= cap) n = cap - 1;
  memcpy(error, text, n);
  error[n] = '\0';
}

static int32_t swap_create(const lds_host_api* host, const lds_config_entry* config, uint32_t count,
                           void** instance, char* error, uint32_t error_cap) {
  uint32_t i;
  void* result = NULL;
  (void)host;
  for (i = 0; i < count; ++i) {
    if (strcmp(config[i].key, "mode") == 0 && strcmp(config[i].value, "ok") == 0) continue;
    if (strcmp(config[i].key, "mode") == 0 && strcmp(config[i].value, "invalid") == 0) {
      result = &token;
      continue;
    }
    put_error(error, error_cap, "unknown option or value for strategy swaptest.");
    return LDS_ERR_INVALID_ARGUMENT;
  }
  *instance = result;
  return LDS_OK;
}

static void swap_destroy(void* instance) { (void)instance; }

static int32_t swap_rank(void* instance, lds_rank_args* args) {
  uint32_t i, n;
  if (args == NULL || args->order == NULL) return LDS_ERR_INVALID_ARGUMENT;
  n = args->dir_count;
  if (n == 0) {
    args->order_len = 0;
    put_error(args->error, args->error_cap, "no candidate log directories");
    return LDS_ERR_NO_ELIGIBLE_DIR;
  }
  for (i = 0; i < n; ++i) args->order[i] = SWAP_REVERSED ? n - 1 - i : i;
  if (instance != NULL && n > 1) args->order[1] = args->order[0];
  args->order_len = n;
  return LDS_OK;
}

static const lds_strategy descriptor = {
    sizeof(lds_strategy),
    LDS_ABI_MAJOR,
    LDS_ABI_MINOR,
    "swaptest",
    SWAP_VERSION,
    "Test strategy for hot swaps: v1 ranks in input order, v2 in reverse.",
    0,
    swap_create,
    swap_destroy,
    swap_rank,
    NULL,
    NULL};

LDS_EXPORT const lds_strategy* lds_strategy_get(uint32_t host_abi_major, uint32_t host_abi_minor) {
  (void)host_abi_minor;
  return host_abi_major == LDS_ABI_MAJOR ? &descriptor : NULL;
}
