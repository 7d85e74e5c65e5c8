/* faulty_plugin.c: a small C strategy with one deliberate contract violation, chosen at build time.
**
** Each liblds_fault_<kind>.so is built from this file with -DFAULT_<KIND>, and the conformance
** checker's own tests expect the matching check to fail. Without a FAULT_ macro the plugin is
** correct: it ranks by partition_count ascending, keeping input order on ties, and on an ABI 1.2
** host writes each directory's partition_count as its score and takes placed calls (ignoring them).
**
** FAULT_EXITS_IN_CREATE, FAULT_ABORTS_IN_CREATE, FAULT_FORKS_IN_CREATE, FAULT_HANGS_IN_RANK,
** FAULT_CRASHES_IN_RANK, FAULT_ERROR_OVERRUN, FAULT_RANK_ERROR_OVERRUN, FAULT_CRASHES_IN_PLACED,
** FAULT_CRASHES_ON_MOVE and FAULT_HANGS_ON_RESERVED_PURPOSE end or stall the process that calls
** them (the checker's error buffers end at a guard page); only the isolated checker may load those.
*/
#if defined(FAULT_SHARED_SCRATCH) || defined(FAULT_HANGS_IN_RANK) || \
    defined(FAULT_FORKS_IN_CREATE) || defined(FAULT_HANGS_ON_RESERVED_PURPOSE)
#define _POSIX_C_SOURCE 200809L
#endif
#ifdef FAULT_SHARED_SCRATCH
#include <sched.h>
#endif
#if defined(FAULT_SHARED_SCRATCH) || defined(FAULT_NOT_DETERMINISTIC) || \
    defined(FAULT_COUNTS_EVERY_CALL)
#include <stdatomic.h>
#endif
#ifdef FAULT_INFINITE_SCORE
#include <math.h>
#endif
#if defined(FAULT_HANGS_IN_RANK) || defined(FAULT_FORKS_IN_CREATE) || \
    defined(FAULT_HANGS_ON_RESERVED_PURPOSE)
#include <unistd.h>
#endif
#if defined(FAULT_CRASHES_IN_RANK) || defined(FAULT_CRASHES_IN_PLACED) || \
    defined(FAULT_CRASHES_ON_MOVE)
#include <signal.h>
#endif
#if defined(FAULT_EXITS_IN_CREATE) || defined(FAULT_ABORTS_IN_CREATE) || \
    defined(FAULT_FORKS_IN_CREATE) || defined(FAULT_COUNTS_EVERY_CALL)
#include <stdlib.h>
#endif
#include <stddef.h>
#include <string.h>

#include <lds/logdir_strategy.h>

#ifndef FAULTY_NAME
#error "define FAULTY_NAME to the strategy name"
#endif

/* Error text, truncated correctly unless FAULT_ERROR_OVERRUN ignores error_cap. */
static void write_error(char* error, uint32_t error_cap, const char* text) {
#ifdef FAULT_ERROR_OVERRUN
  (void)error_cap;
  if (error != NULL) strcpy(error, text);
#else
  size_t length = strlen(text);
  if (error == NULL || error_cap == 0) return;
  if (length >= error_cap) length = error_cap - 1;
  memcpy(error, text, length);
  error[length] = '\0';
#endif
}

#ifdef FAULT_RANK_ERROR_OVERRUN
/* Off by three: truncates rank's error text to error_cap + 2 characters and its NUL, so a long
** enough text ends three bytes past the buffer. */
static void write_rank_error(char* error, uint32_t error_cap, const char* text) {
  size_t length = strlen(text);
  if (error == NULL) return;
  if (length > (size_t)error_cap + 2) length = (size_t)error_cap + 2;
  memcpy(error, text, length);
  error[length] = '\0';
}
#else
#define write_rank_error write_error
#endif

#ifdef FAULT_COUNTS_EVERY_CALL
/* Its own state per instance: how many times rank was called, whatever the purpose. */
typedef struct call_counter {
  _Atomic uint32_t calls;
} call_counter;
#else
static int instance_token;
#endif

static int32_t faulty_create(const lds_host_api* host, const lds_config_entry* config,
                             uint32_t config_count, void** instance, char* error,
                             uint32_t error_cap) {
  (void)host;
  (void)config;
#ifdef FAULT_EXITS_IN_CREATE
  /* A plugin that "handles" a problem by ending the host; a checker must not take it for a pass. */
  exit(0);
#endif
#ifdef FAULT_ABORTS_IN_CREATE
  abort();
#endif
#ifdef FAULT_FORKS_IN_CREATE
  /* Leaves a helper process behind that still holds every descriptor the caller had open (so a
  ** pipe to a watching parent stays open for a while), then ends the caller. The helper lets go
  ** of the terminal and ends on its own, so it outlives the caller by a few seconds at most. */
  if (fork() == 0) {
    close(0);
    close(1);
    close(2);
    sleep(3);
    _exit(0);
  }
  exit(0);
#endif
#ifndef FAULT_ACCEPTS_UNKNOWN_KEY
  if (config_count > 0) {
    write_error(error, error_cap, "unknown option lds.conformance.unknown.key");
    return LDS_ERR_INVALID_ARGUMENT;
  }
#else
  (void)config_count;
  (void)error;
  (void)error_cap;
#endif
#ifdef FAULT_COUNTS_EVERY_CALL
  {
    call_counter* counter = (call_counter*)calloc(1, sizeof *counter);
    if (counter == NULL) {
      write_error(error, error_cap, "out of memory");
      return LDS_ERR_INTERNAL;
    }
    atomic_init(&counter->calls, 0u);
    *instance = counter;
  }
#else
  *instance = &instance_token;
#endif
  return LDS_OK;
}

#ifdef FAULT_COUNTS_EVERY_CALL
static void faulty_destroy(void* instance) { free(instance); }
#else
static void faulty_destroy(void* instance) { (void)instance; }
#endif

/* A partition was created; this strategy keeps nothing of it. */
static void faulty_placed(void* instance, const lds_request* request, const lds_dir* dir) {
  (void)instance;
  (void)request;
  (void)dir;
#ifdef FAULT_CRASHES_IN_PLACED
  raise(SIGSEGV);
#endif
}

static const lds_dir* dir_at(const lds_rank_args* args, uint32_t i) {
#ifdef FAULT_IGNORES_STRIDE
  return &args->dirs[i];
#else
  return LDS_DIR_AT(args, i);
#endif
}

static uint32_t sort_key(const lds_rank_args* args, uint32_t i) {
  const lds_dir* dir = dir_at(args, i);
#ifdef FAULT_READS_RESERVED_FLAGS
  if (dir->flags > (LDS_DIR_CORDONED | LDS_DIR_SPACE_UNKNOWN)) return 0;
#endif
  return dir->partition_count;
}

static int32_t faulty_rank(void* instance, lds_rank_args* args) {
  uint32_t i;
  uint32_t len = 0;
  (void)instance;
#ifdef FAULT_HANGS_IN_RANK
  /* Never returns: waits for a signal that nothing sends. */
  for (;;) pause();
#endif
#ifdef FAULT_CRASHES_IN_RANK
  raise(SIGSEGV);
#endif
#ifdef FAULT_CRASHES_ON_MOVE
  /* The checks ask a non-empty list with LDS_RANK_MOVE first in rank_scores. */
  if (LDS_RANK_ARGS_HAVE_PURPOSE(args) && args->purpose == LDS_RANK_MOVE && args->dir_count > 0) {
    raise(SIGSEGV);
  }
#endif
#ifdef FAULT_HANGS_ON_RESERVED_PURPOSE
  /* The checks send a reserved purpose first in rank_purpose_keeps_state. */
  if (LDS_RANK_ARGS_HAVE_PURPOSE(args) && args->purpose > LDS_RANK_MOVE) {
    for (;;) pause();
  }
#endif
#ifdef FAULT_REFUSES_OLDER_ARGS
  /* Wrong: a 1.0 or 1.1 host passes the smaller lds_rank_args of its own header. */
  if (args->struct_size < sizeof(lds_rank_args)) {
    write_rank_error(args->error, args->error_cap, "lds_rank_args is too small");
    return LDS_ERR_INVALID_ARGUMENT;
  }
#endif
#ifdef FAULT_TRUSTS_PURPOSE
  /* Wrong: LDS_HAS_FIELD holds on a 1.0 or 1.1 host too, whose struct_size counts the padding
  ** where purpose now lies; only LDS_RANK_ARGS_HAVE_PURPOSE says the host wrote it. And a
  ** reserved value must be read as LDS_RANK_VALIDATE, not refused. */
  if (LDS_HAS_FIELD(args, lds_rank_args, purpose) && args->purpose > LDS_RANK_MOVE) {
    write_rank_error(args->error, args->error_cap, "rank was called with an unknown purpose");
    return LDS_ERR_INTERNAL;
  }
#endif
  for (i = 0; i < args->dir_count; ++i) {
    const uint32_t key = sort_key(args, i);
    uint32_t pos = len;
    while (pos > 0 && sort_key(args, args->order[pos - 1]) > key) {
      args->order[pos] = args->order[pos - 1];
      --pos;
    }
    args->order[pos] = i;
    ++len;
  }
#ifdef FAULT_NOT_DETERMINISTIC
  {
    /* Declares LDS_CAP_DETERMINISTIC but rotates its answer on every call, as round robin does. */
    static _Atomic uint32_t calls;
    const uint32_t shift = len > 0 ? (uint32_t)(atomic_fetch_add(&calls, 1u) % len) : 0;
    uint32_t rotated[64];
    for (i = 0; i < len && len <= 64; ++i) rotated[i] = args->order[(i + shift) % len];
    for (i = 0; i < len && len <= 64; ++i) args->order[i] = rotated[i];
  }
#endif
#ifdef FAULT_COUNTS_EVERY_CALL
  {
    /* Rotates its answer by the calls so far, as a 1.1 round robin did: on a 1.2 host it should
    ** move on only on LDS_RANK_PLACE or in placed, so a PREVIEW shifts the next placement. */
    call_counter* counter = (call_counter*)instance;
    const uint32_t shift = len > 0 ? (uint32_t)(atomic_fetch_add(&counter->calls, 1u) % len) : 0;
    uint32_t rotated[64];
    for (i = 0; i < len && len <= 64; ++i) rotated[i] = args->order[(i + shift) % len];
    for (i = 0; i < len && len <= 64; ++i) args->order[i] = rotated[i];
  }
#endif
#ifdef FAULT_DUPLICATE_INDEX
  if (len >= 2) args->order[1] = args->order[0];
#endif
#ifdef FAULT_SHARED_SCRATCH
  {
    /* Not thread-safe: every call passes its answer through one shared buffer. Atomics keep it
    ** free of undefined behaviour (and of sanitizer reports); the answers still get mixed up. */
    static _Atomic uint32_t scratch[64];
    static _Atomic uint32_t scratch_len;
    for (i = 0; i < len && i < 64; ++i) atomic_store(&scratch[i], args->order[i]);
    atomic_store(&scratch_len, len);
    sched_yield();
    len = atomic_load(&scratch_len);
    if (len > args->dir_count) len = args->dir_count;
    for (i = 0; i < len && i < 64; ++i) args->order[i] = atomic_load(&scratch[i]);
  }
#endif
  if (LDS_RANK_ARGS_HAVE_PURPOSE(args) && args->scores != NULL) {
    for (i = 0; i < args->dir_count; ++i)
      args->scores[i] = (double)dir_at(args, i)->partition_count;
#ifdef FAULT_INFINITE_SCORE
    if (args->dir_count > 0) args->scores[0] = INFINITY;
#endif
  }
  args->order_len = len;
  if (len == 0) {
    write_rank_error(args->error, args->error_cap, "no log directories to choose from");
    return LDS_ERR_NO_ELIGIBLE_DIR;
  }
  return LDS_OK;
}

static const lds_strategy faulty_strategy = {
#ifdef FAULT_SHORT_DESCRIPTOR
    /* Says it is built for 1.2 but gives the 1.1 size, so a host never sees placed nor score_name.
     */
    .struct_size = offsetof(lds_strategy, placed),
#else
    .struct_size = sizeof(lds_strategy),
#endif
/* Fields an author left out of the initialiser, so they are 0 or NULL: the checker must name
** each with its fix. */
#if !defined(FAULT_NO_ABI_MAJOR) && !defined(FAULT_NULL_FIELDS)
    .abi_major = LDS_ABI_MAJOR,
#endif
    .abi_minor = LDS_ABI_MINOR,
#ifdef FAULT_WRONG_NAME
    .name = "not_" FAULTY_NAME,
#elif !defined(FAULT_NULL_FIELDS)
    .name = FAULTY_NAME,
#endif
#ifndef FAULT_NULL_FIELDS
    .version = "0.0.1",
#endif
    .description = "A strategy with one deliberate contract violation.",
#if defined(FAULT_COUNTS_EVERY_CALL)
    /* Stateful, and says so. */
    .capabilities = 0,
#elif defined(FAULT_RANKS_CORDONED)
    /* Promises to leave cordoned directories out, and ranks them like any other. */
    .capabilities = LDS_CAP_DETERMINISTIC | LDS_CAP_HONORS_CORDON,
#else
    /* Deterministic but for its fault, so the checker compares its answers. */
    .capabilities = LDS_CAP_DETERMINISTIC,
#endif
    .create = faulty_create,
    .destroy = faulty_destroy,
    .rank = faulty_rank,
    .placed = faulty_placed,
#ifndef FAULT_SCORES_WITHOUT_NAME
    .score_name = "partitions",
#endif
};

#ifndef FAULT_NO_ENTRY_POINT
LDS_EXPORT const lds_strategy* lds_strategy_get(uint32_t host_abi_major, uint32_t host_abi_minor) {
  (void)host_abi_minor;
#ifdef FAULT_ANY_MAJOR
  (void)host_abi_major;
  return &faulty_strategy;
#else
  return host_abi_major == LDS_ABI_MAJOR ? &faulty_strategy : NULL;
#endif
}
#else
/* Exported under the wrong name, so the library loads but has no entry point. */
LDS_EXPORT const lds_strategy* lds_strategy_get_misspelled(void);
LDS_EXPORT const lds_strategy* lds_strategy_get_misspelled(void) { return &faulty_strategy; }
#endif
