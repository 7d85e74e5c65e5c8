/* bad_plugin.c: a strategy plugin with one deliberate fault, chosen at build time, for the host's
** robustness tests.
**
** Each liblds_bad_<fault>.so is built from this file with -DBAD_<FAULT> and
*-DBAD_NAME="bad_<fault>".
** Load-time faults break the handshake, the descriptor, create or the dry run. Run-time faults
** (the other BAD_RANK_*) only misbehave for real placements: the host's dry run (topic
** "__lds_dry_run") gets a valid ranking, so the plugin loads and its faults reach the per-call
** fallback. Three faults never return: BAD_CREATE_HANGS from create, BAD_RANK_HANGS_IN_DRY_RUN from
** the dry run's rank, and BAD_RANK_HANGS from rank for placements of topic "hang" (it logs "rank
** hangs for hang-<partition>" first). BAD_RANK_WAITS stalls instead, as a strategy waiting on a
** slow service does: rank waits, outside the dry run, for as long as the file named by the
** environment variable LDS_BAD_RANK_HOLD exists. Without a BAD_ macro the plugin is correct: it
** ranks by partition_count ascending, keeping input order on ties.
*/
/* pause() is POSIX, not C99. */
#define _POSIX_C_SOURCE 200809L

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <lds/logdir_strategy.h>

#ifndef BAD_NAME
#error "define BAD_NAME to the strategy name"
#endif

/* Each build leaves some of the functions below out of its descriptor. */
#define BAD_MAYBE_UNUSED __attribute__((unused))

/* The request the host sends for its dry run when it loads a strategy. */
static int is_dry_run(const lds_rank_args* args) {
  return args->request != NULL && args->request->topic != NULL &&
         strcmp(args->request->topic, "__lds_dry_run") == 0;
}

static void write_error(char* error, uint32_t error_cap, const char* text) {
  size_t length = strlen(text);
  if (error == NULL || error_cap == 0) return;
  if (length >= error_cap) length = error_cap - 1;
  memcpy(error, text, length);
  error[length] = '\0';
}

/* Fills the whole buffer with text and no NUL: the host must not read past error_cap. */
BAD_MAYBE_UNUSED static void write_unterminated_error(char* error, uint32_t error_cap) {
  if (error != NULL && error_cap > 0) memset(error, 'x', error_cap);
}

BAD_MAYBE_UNUSED static int instance_token;

/* The host's services, kept from create for the hanging rank's log line. */
BAD_MAYBE_UNUSED static const lds_host_api* saved_host;

/* Never returns: pause() sleeps until a signal, and after one the loop sleeps again. */
BAD_MAYBE_UNUSED static void hang_forever(void) {
  for (;;) pause();
}

BAD_MAYBE_UNUSED static int32_t bad_create(const lds_host_api* host, const lds_config_entry* config,
                                           uint32_t config_count, void** instance, char* error,
                                           uint32_t error_cap) {
  (void)host;
  (void)config;
  (void)instance;
#if defined(BAD_CREATE_FAILS)
  (void)config_count;
  write_error(error, error_cap, "cannot reach the disk inventory service at 10.0.0.7:8080");
  return LDS_ERR_INTERNAL;
#elif defined(BAD_CREATE_UNTERMINATED)
  (void)config_count;
  write_unterminated_error(error, error_cap);
  return LDS_ERR_INVALID_ARGUMENT;
#elif defined(BAD_CREATE_HANGS)
  (void)config_count;
  (void)error;
  (void)error_cap;
  hang_forever();
  return LDS_ERR_INTERNAL; /* not reached */
#else
  if (config_count > 0) {
    write_error(error, error_cap, "this strategy takes no options");
    return LDS_ERR_INVALID_ARGUMENT;
  }
  saved_host = host;
  *instance = &instance_token;
  return LDS_OK;
#endif
}

BAD_MAYBE_UNUSED static void bad_destroy(void* instance) { (void)instance; }

BAD_MAYBE_UNUSED static int32_t bad_rank(void* instance, lds_rank_args* args) {
  uint32_t i;
  uint32_t len = 0;
  (void)instance;
#if defined(BAD_DRY_RUN_UNTERMINATED)
  write_unterminated_error(args->error, args->error_cap);
  return LDS_ERR_INTERNAL;
#elif defined(BAD_RANK_HANGS_IN_DRY_RUN)
  if (is_dry_run(args)) hang_forever();
#elif defined(BAD_RANK_WAITS)
  if (!is_dry_run(args)) {
    const char* hold = getenv("LDS_BAD_RANK_HOLD");
    const struct timespec pause_10ms = {0, 10000000};
    while (hold != NULL && access(hold, F_OK) == 0) nanosleep(&pause_10ms, NULL);
  }
#elif defined(BAD_RANK_HANGS)
  if (args->request != NULL && args->request->topic != NULL &&
      strcmp(args->request->topic, "hang") == 0) {
    char line[64];
    snprintf(line, sizeof line, "rank hangs for hang-%d", (int)args->request->partition);
    if (saved_host != NULL) saved_host->log(saved_host->context, LDS_LOG_WARN, line);
    hang_forever();
  }
#endif
  for (i = 0; i < args->dir_count; ++i) {
    const uint32_t key = LDS_DIR_AT(args, i)->partition_count;
    uint32_t pos = len;
    while (pos > 0 && LDS_DIR_AT(args, args->order[pos - 1])->partition_count > key) {
      args->order[pos] = args->order[pos - 1];
      --pos;
    }
    args->order[pos] = i;
    ++len;
  }
  args->order_len = len;
  if (len == 0) {
    write_error(args->error, args->error_cap, "no log directories to choose from");
    return LDS_ERR_NO_ELIGIBLE_DIR;
  }
  if (is_dry_run(args)) return LDS_OK;
#if defined(BAD_RANK_OUT_OF_RANGE)
  args->order[0] = args->dir_count + 6;
#elif defined(BAD_RANK_DUPLICATE)
  if (len >= 2) args->order[1] = args->order[0];
#elif defined(BAD_RANK_TOO_LONG)
  args->order_len = args->dir_count + 1; /* claims more entries than the buffer holds */
#elif defined(BAD_RANK_ERROR)
  write_error(args->error, args->error_cap, "the placement service timed out");
  return LDS_ERR_INTERNAL;
#elif defined(BAD_RANK_UNTERMINATED)
  write_unterminated_error(args->error, args->error_cap);
  return LDS_ERR_INTERNAL;
#endif
  return LDS_OK;
}

#if defined(BAD_SHORT_STRUCT)
/* A descriptor that claims to end before rank: smaller than version 1.0 of the struct. */
#define BAD_STRUCT_SIZE offsetof(lds_strategy, rank)
#else
#define BAD_STRUCT_SIZE sizeof(lds_strategy)
#endif

static const lds_strategy bad_strategy = {
    (uint32_t)BAD_STRUCT_SIZE,
#if defined(BAD_WRONG_MAJOR)
    LDS_ABI_MAJOR + 1,
#else
    LDS_ABI_MAJOR,
#endif
    LDS_ABI_MINOR,
#if defined(BAD_WRONG_NAME)
    "somebody_else",
#else
    BAD_NAME,
#endif
    "0.0.1",
    "A strategy with one deliberate fault, for the host's robustness tests.",
    0,
#if defined(BAD_NULL_CREATE)
    NULL,
#else
    bad_create,
#endif
#if defined(BAD_NULL_DESTROY)
    NULL,
#else
    bad_destroy,
#endif
#if defined(BAD_NULL_RANK)
    NULL,
#else
    bad_rank,
#endif
    NULL,
    NULL,
};

#if !defined(BAD_NO_ENTRY)
LDS_EXPORT const lds_strategy* lds_strategy_get(uint32_t host_abi_major, uint32_t host_abi_minor) {
  (void)host_abi_minor;
#if defined(BAD_NULL_DESCRIPTOR)
  (void)host_abi_major;
  (void)bad_strategy.struct_size; /* built, but never handed out */
  return NULL;
#elif defined(BAD_WRONG_MAJOR)
  (void)host_abi_major; /* answers any host with a descriptor of another major */
  return &bad_strategy;
#else
  return host_abi_major == LDS_ABI_MAJOR ? &bad_strategy : NULL;
#endif
}
#else
/* No entry point at all: the library loads, but exports nothing the host looks for. The descriptor
** is kept referenced so that the same code compiles without warnings. */
const lds_strategy* bad_plugin_unused_descriptor(void);
const lds_strategy* bad_plugin_unused_descriptor(void) { return &bad_strategy; }
#endif
