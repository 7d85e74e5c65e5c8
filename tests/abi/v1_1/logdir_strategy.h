/* logdir_strategy.h: the whole C ABI between a broker host and its log-directory selection
** strategies.
**
** This header is the complete contract. Anything not declared here is not part of the ABI, may
** change at any time, and must not be relied on by a plugin. The header compiles as C99 and as C++
** and includes nothing but <stdint.h> and <stddef.h>.
**
** A strategy is a shared object named liblds_<name>.so that exports exactly one function,
** lds_strategy_get (also spelled LDS_ENTRY_POINT). The host calls it once after loading the
** library, receives a static descriptor (lds_strategy), creates one instance with the strategy's
** own options, and then asks that instance to rank candidate log directories for each new
** partition.
**
** Rules that hold for every item below:
**   - Every struct that crosses the boundary starts with uint32_t struct_size, set by whoever fills
**     the struct to sizeof() of the struct as that side compiled it. Structs only grow at the end.
**     A reader reads min(struct_size, sizeof) bytes and treats missing fields as zero.
**   - A plugin reads a field added by a later minor only when LDS_HAS_FIELD says the struct the
**     host passed holds it (see "Reading fields of a later minor" below); otherwise it treats the
**     field as unknown. It never reads past struct_size, nor past dir_stride for an lds_dir.
**   - Only fixed-width integers, pointers to char and pointers to these structs cross the boundary.
**     No C++ types, no exceptions, and no memory allocated by one side is freed by the other.
**   - Strings are NUL-terminated UTF-8 and are borrowed: valid only for the duration of the call
**     that passes them, unless stated otherwise.
**   - Errors are reported as an lds_status return value plus, where the call has an error buffer,
**     one NUL-terminated sentence written into it.
*/
#ifndef LDS_LOGDIR_STRATEGY_H
#define LDS_LOGDIR_STRATEGY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
** ABI version
**
** LDS_ABI_MAJOR changes when an existing struct field, function signature or meaning changes; a
** host refuses a plugin whose descriptor carries a different major. LDS_ABI_MINOR changes when
** fields are appended to a struct or new constants are added; hosts and plugins of different minors
** of one major work together by the struct_size rule above.
**
** Minor 1 (ABI 1.1) appended lds_dir.bytes_in_per_sec, lds_request.expected_bytes_in_per_sec, the
** flag LDS_DIR_RATE_UNKNOWN, the capability LDS_CAP_DETERMINISTIC and the macro LDS_HAS_FIELD. It
** moved and changed nothing of 1.0: a plugin binary built against the 1.0 header runs unchanged on
** a 1.1 host, and a 1.1 plugin runs on a 1.0 host as long as it checks LDS_HAS_FIELD.
*/
#define LDS_ABI_MAJOR 1
#define LDS_ABI_MINOR 1

/*
** Symbol visibility
**
** Plugins are built with -fvisibility=hidden. LDS_EXPORT gives the one exported symbol, the entry
** point, default visibility.
*/
#if defined(__GNUC__) || defined(__clang__)
#define LDS_EXPORT __attribute__((visibility("default")))
#else
#define LDS_EXPORT
#endif

/*
** Result codes (lds_status)
**
** Every function pointer in this ABI that can fail returns one of these values as an int32_t.
**
** LDS_OK                    The call succeeded and its outputs are valid.
** LDS_ERR_INVALID_ARGUMENT  A configuration value or key is wrong (create), or the call itself is
**                           malformed: a NULL pointer, a struct_size too small to hold the v1
**                           fields. The error buffer names the key, value or argument at fault.
** LDS_ERR_NO_ELIGIBLE_DIR   rank found no candidate directory that may take the partition. This is
**                           a normal answer, not a fault; the error buffer says why.
** LDS_ERR_UNSUPPORTED       The strategy does not support what was asked of it.
** LDS_ERR_INTERNAL          Anything else went wrong inside the plugin (for example an allocation
**                           failed). The host treats the call as failed and falls back.
*/
typedef int32_t lds_status;
#define LDS_OK ((lds_status)0)
#define LDS_ERR_INVALID_ARGUMENT ((lds_status)1)
#define LDS_ERR_NO_ELIGIBLE_DIR ((lds_status)2)
#define LDS_ERR_UNSUPPORTED ((lds_status)3)
#define LDS_ERR_INTERNAL ((lds_status)4)

/*
** Directory flags (lds_dir.flags)
**
** LDS_DIR_CORDONED       The operator cordoned this directory (KIP-1066, cordoned.log.dirs). It
**                        keeps its replicas but should take no new ones. Whether a strategy honours
**                        the flag is declared by LDS_CAP_HONORS_CORDON.
** LDS_DIR_SPACE_UNKNOWN  The host could not read the directory's filesystem size; total_bytes and
**                        usable_bytes are meaningless (the host sets them to 0).
** LDS_DIR_RATE_UNKNOWN   (1.1) The directory's append rate has no history yet (the host started
**                        recently or the directory just came online); bytes_in_per_sec is 0 and
**                        means "unknown", not "idle". A 1.0 host never sets this bit and does not
**                        send bytes_in_per_sec at all: check LDS_HAS_FIELD first.
**
** Bits not defined here are reserved and must be ignored by plugins.
*/
#define LDS_DIR_CORDONED 0x1u
#define LDS_DIR_SPACE_UNKNOWN 0x2u
#define LDS_DIR_RATE_UNKNOWN 0x4u

/*
** Reading fields of a later minor (LDS_HAS_FIELD)
**
** LDS_HAS_FIELD(ptr, type, field) is non-zero when the struct at ptr, of type `type`, holds `field`
** whole: its struct_size reaches past the field's last byte. A host or plugin built against an
** older header passes a smaller struct_size, and the bytes past it are not there to read (they may
** be unmapped memory, or the next array entry).
**
** The rules, for a plugin built against this header and run by a host of any minor of major 1:
**   1. Read a field that was in 1.0 directly; every host sends it.
**   2. Read a field added later only when LDS_HAS_FIELD holds for the struct it is in, for every
**      struct it is read from (each lds_dir carries its own struct_size). When it does not hold,
**      treat the field as unknown: not as 0 bytes, not as "idle". For example:
**        const lds_dir* d = LDS_DIR_AT(args, i);
**        int rate_known = LDS_HAS_FIELD(d, lds_dir, bytes_in_per_sec) &&
**                         !(d->flags & LDS_DIR_RATE_UNKNOWN);
**   3. Step through lds_dir entries with LDS_DIR_AT (by dir_stride), never by sizeof(lds_dir). The
**      host keeps every entry's struct_size <= dir_stride, so an entry never overlaps the next.
**   4. lds_strategy_get receives the host's minor. A plugin that cannot work without a later
**      field returns NULL there for an older minor; the host then refuses it with one sentence.
** A host reads a plugin's descriptor by the same rules: min(struct_size, sizeof), missing = zero.
*/
#define LDS_HAS_FIELD(ptr, type, field) \
  ((size_t)(ptr)->struct_size >= offsetof(type, field) + sizeof(((const type*)0)->field))

/*
** One candidate log directory (lds_dir)
**
** Filled by the host for one rank call; every pointer and value is valid only during that call.
** Offline directories are never passed. The host passes the entries in log.dirs order, which is the
** order ties must keep.
**
** struct_size            sizeof(lds_dir) as the host compiled it. Version 1.0 is 48 bytes,
**                        version 1.1 is 56.
** flags                  LDS_DIR_* bits.
** path                   Canonical absolute path of the directory. Never NULL.
** total_bytes            Size of the filesystem holding the directory.
** usable_bytes           Bytes the broker may still write there (statvfs f_bavail * f_frsize).
** reserved_bytes         Bytes promised to partitions already placed here but not yet written. The
**                        host never counts a byte both here and as used space.
** partition_count        Replicas hosted here, current and future (moves in progress count in
**                        their destination).
** topic_partition_count  Those of partition_count that belong to the request's topic.
** bytes_in_per_sec       (1.1) The directory's recent append rate in bytes per second: an
**                        exponentially decayed average over the host's log.dir.rate.window.ms,
**                        counting appends to its replicas and the bytes copied into it by replica
**                        moves. 0 with LDS_DIR_RATE_UNKNOWN when it has no history yet. Read it
**                        only when LDS_HAS_FIELD(dir, lds_dir, bytes_in_per_sec).
*/
typedef struct lds_dir {
  uint32_t struct_size;
  uint32_t flags;
  const char* path;
  uint64_t total_bytes;
  uint64_t usable_bytes;
  uint64_t reserved_bytes;
  uint32_t partition_count;
  uint32_t topic_partition_count;
  /* Fields above are version 1.0. */
  uint64_t bytes_in_per_sec;
  /* Fields above are version 1.1. Later minors append here. */
} lds_dir;

/*
** The partition being placed (lds_request)
**
** struct_size     sizeof(lds_request) as the host compiled it. Version 1.0 is 24 bytes, version
**                 1.1 is 32.
** partition       Partition number, >= 0.
** topic           Topic name, [a-zA-Z0-9._-]{1,249}. Never NULL.
** expected_bytes  The host's estimate of the partition's eventual size, 0 if it has none.
**                 Sources in order: the request, log.partition.expected.bytes, the mean size of
**                 the topic's hosted partitions, the mean size of all hosted partitions.
** expected_bytes_in_per_sec
**                 (1.1) The host's estimate of the partition's append rate in bytes per second,
**                 0 if it has none. Sources in order: the creation request, the mean rate of the
**                 topic's hosted partitions. Read it only when
**                 LDS_HAS_FIELD(request, lds_request, expected_bytes_in_per_sec).
*/
typedef struct lds_request {
  uint32_t struct_size;
  int32_t partition;
  const char* topic;
  uint64_t expected_bytes;
  /* Fields above are version 1.0. */
  uint64_t expected_bytes_in_per_sec;
  /* Fields above are version 1.1. Later minors append here. */
} lds_request;

/*
** Arguments and results of one rank call (lds_rank_args)
**
** Owned by the host; the plugin reads the inputs and writes only order, order_len and error.
**
** struct_size  sizeof(lds_rank_args) as the host compiled it. Version 1 is 64 bytes on LP64.
** dir_count    Number of candidate directories; may be 0.
** dir_stride   Bytes from one lds_dir to the next. It is the host's sizeof(lds_dir), which may be
**              larger than the plugin's (a newer host) or smaller (an older host: 48 bytes for
**              1.0); always read entries with LDS_DIR_AT, and later fields with LDS_HAS_FIELD.
** request      The partition being placed. Never NULL.
** dirs         The first candidate. NULL only when dir_count is 0.
** order        Output: room for dir_count indices into dirs. The plugin writes the indices of the
**              eligible directories, best first, each at most once, each < dir_count.
** order_len    Output: how many entries of order were written, <= dir_count.
** error        Output: buffer of error_cap bytes for one NUL-terminated sentence when the status is
**              not LDS_OK. May be NULL when error_cap is 0. The plugin must truncate to fit and
**              must always terminate within error_cap.
** error_cap    Size of error in bytes, including room for the NUL.
*/
typedef struct lds_rank_args {
  uint32_t struct_size;
  uint32_t dir_count;
  uint32_t dir_stride;
  const lds_request* request;
  const lds_dir* dirs;
  uint32_t* order;
  uint32_t order_len;
  char* error;
  uint32_t error_cap;
  /* Fields above are version 1.0. Later minors append here. */
} lds_rank_args;

/*
** LDS_DIR_AT(args, i): a pointer to candidate i of an lds_rank_args, stepping by dir_stride so that
** a plugin compiled against this header reads a newer host's larger lds_dir correctly. i must be
** less than args->dir_count.
*/
#define LDS_DIR_AT(args, i)                                  \
  ((const lds_dir*)(const void*)((const char*)(args)->dirs + \
                                 (size_t)(i) * (size_t)(args)->dir_stride))

/*
** One strategy option (lds_config_entry)
**
** The host passes every key log.directory.select.<name>.<key> of the broker config to strategy
** <name> as { "<key>", "<value>" }: the prefix removed, the value as text. Both strings are
** borrowed for the duration of create only; a plugin that needs them later copies them.
*/
typedef struct lds_config_entry {
  const char* key;
  const char* value;
} lds_config_entry;

/*
** Log levels for lds_host_api.log
*/
#define LDS_LOG_TRACE 0
#define LDS_LOG_DEBUG 1
#define LDS_LOG_INFO 2
#define LDS_LOG_WARN 3
#define LDS_LOG_ERROR 4

/*
** Services the host offers a plugin (lds_host_api)
**
** Passed to create. The struct and its context stay valid until destroy returns for the instance
** created with it, so a plugin may keep the pointer. Both functions may be called from any thread,
** concurrently, including from inside rank.
**
** struct_size  sizeof(lds_host_api) as the host compiled it. Version 1 is 32 bytes on LP64.
** context      Opaque host state; pass it back as the first argument of each function.
** log          Writes one log line at an LDS_LOG_* level to the plugin's own host logger.
**              message is copied before the call returns. Plugins never link a logging library;
**              they log here.
** log_enabled  Returns non-zero if a message at level would be written, so a plugin can skip
**              formatting it. May be NULL in which case treat every level as enabled.
*/
typedef struct lds_host_api {
  uint32_t struct_size;
  void* context;
  void (*log)(void* context, int32_t level, const char* message);
  int32_t (*log_enabled)(void* context, int32_t level);
  /* Fields above are version 1.0. Later minors append here. */
} lds_host_api;

/*
** Capability bits (lds_strategy.capabilities)
**
** LDS_CAP_HONORS_CORDON      The strategy never ranks a directory flagged LDS_DIR_CORDONED. When
**                            cordoned.log.dirs is non-empty and the active strategy lacks this bit,
**                            the host warns the operator.
** LDS_CAP_USES_SPACE         The ranking reads total_bytes and usable_bytes. A host may skip
**                            reading filesystem sizes for a strategy without this bit; it then
**                            passes total_bytes and usable_bytes as 0 with LDS_DIR_SPACE_UNKNOWN.
** LDS_CAP_USES_RESERVATIONS  The ranking reads reserved_bytes and expected_bytes.
** LDS_CAP_DETERMINISTIC      (1.1) rank's answer is a function of its inputs: the same instance,
**                            given the same args contents (the same candidates, request and
**                            error_cap), returns the same status and the same order, whichever
**                            thread calls and however many calls came before. A checker may
**                            compare answers and fail a plugin that breaks this promise.
**                            A strategy without the bit may keep state (round robin, random
**                            choice, learned history) and answer identical inputs differently on
**                            each call; every answer must still keep the whole rank contract
**                            below, and rank must still be safe from many threads at once. Either
**                            way the host may call rank for validation (a dry run at load and at
**                            each swap) and discard the answer, so a stateful strategy must not
**                            assume every answer is used.
*/
#define LDS_CAP_HONORS_CORDON 0x1ull
#define LDS_CAP_USES_SPACE 0x2ull
#define LDS_CAP_USES_RESERVATIONS 0x4ull
#define LDS_CAP_DETERMINISTIC 0x8ull

/*
** The strategy descriptor (lds_strategy)
**
** A static object inside the plugin, returned by lds_strategy_get. It lives as long as the library
** is loaded; the host never writes to it and never frees it.
**
** struct_size   sizeof(lds_strategy) as the plugin compiled it. Version 1 is 64 bytes on LP64.
** abi_major     LDS_ABI_MAJOR the plugin was built with. The host refuses any other major.
** abi_minor     LDS_ABI_MINOR the plugin was built with.
** name          The strategy name, [a-z0-9_]+. It equals the value of
**               log.directory.select.strategy that selects it and the <name> in liblds_<name>.so.
** version       Free-form version text shown to operators, for example "1.2.0". Never NULL.
** description   One sentence shown to operators. Never NULL.
** capabilities  LDS_CAP_* bits.
**
** create(host, config, config_count, instance, error, error_cap)
**   Builds one instance from the strategy's options. The host calls it on a helper thread while
**   its control thread waits, for at most plugin.validation.timeout.ms together with the dry-run
**   rank that follows; past that the host gives up on the plugin, leaves the thread inside it and
**   never destroys what it may create. Other instances of the same strategy may meanwhile rank or
**   be destroyed on other threads, so create touches no state shared between instances without
**   synchronisation. config holds config_count entries (config may be NULL when config_count is
**   0). On LDS_OK the plugin stores an opaque pointer in *instance (it may be NULL if the strategy
**   keeps no state). On any other status *instance is untouched and a sentence is written to error
**   (error_cap bytes, always NUL-terminated). An unknown key or an invalid value is
**   LDS_ERR_INVALID_ARGUMENT and the sentence names the key and the value, so configuration typos
**   are caught.
**
** destroy(instance)
**   Frees an instance from create. Called by whichever host thread lets go of the strategy last
**   (the control thread, or a placement that finished on a strategy swapped out meanwhile),
**   exactly once per successful create, after every rank call on the instance has returned.
**   Passing NULL is a harmless no-op.
**
** rank(instance, args)
**   Ranks the candidates of args for args->request (see lds_rank_args). May be called from many
**   threads at once on one instance; it must not keep any pointer from args after it returns.
**   Returns LDS_OK with order/order_len set (order_len may be less than dir_count when some
**   directories are ineligible, but is at least 1), LDS_ERR_NO_ELIGIBLE_DIR with order_len 0 and a
**   sentence when nothing is eligible (also when dir_count is 0), LDS_ERR_INVALID_ARGUMENT for a
**   malformed args, or LDS_ERR_INTERNAL. On any status other than LDS_OK the host ignores order. A
**   ranking that repeats an index, names an index >= dir_count or sets order_len > dir_count is
**   invalid; the host logs it and falls back to its built-in fewest-partitions order for that call.
**   The host may call rank for validation only (a dry run on the current directories when the
**   strategy is loaded or swapped in) and discard the answer. Whether two calls with identical
**   inputs must agree is declared by LDS_CAP_DETERMINISTIC.
**
** Fields above are version 1.0. Later minors append function pointers here.
*/
typedef struct lds_strategy {
  uint32_t struct_size;
  uint16_t abi_major;
  uint16_t abi_minor;
  const char* name;
  const char* version;
  const char* description;
  uint64_t capabilities;
  int32_t (*create)(const lds_host_api* host, const lds_config_entry* config, uint32_t config_count,
                    void** instance, char* error, uint32_t error_cap);
  void (*destroy)(void* instance);
  int32_t (*rank)(void* instance, lds_rank_args* args);
  /* Fields above are version 1.0. Later minors append here. */
} lds_strategy;

/*
** The entry point (lds_strategy_get, LDS_ENTRY_POINT)
**
** The only symbol a plugin exports. The host calls it once, after loading the library, from its
** control thread, passing its own LDS_ABI_MAJOR and LDS_ABI_MINOR. The plugin returns its static
** descriptor, or NULL if it cannot serve a host of that version: a different major, or an older
** minor whose structs lack a field the plugin cannot work without. A plugin that merely benefits
** from a later field serves every minor of its major and checks LDS_HAS_FIELD instead.
** The function must not fail in any other way and must be cheap: it may be called again each time
** the library is loaded.
*/
#define LDS_ENTRY_POINT lds_strategy_get
#define LDS_ENTRY_POINT_NAME "lds_strategy_get"
typedef const lds_strategy* (*lds_strategy_get_fn)(uint32_t host_abi_major,
                                                   uint32_t host_abi_minor);

LDS_EXPORT const lds_strategy* lds_strategy_get(uint32_t host_abi_major, uint32_t host_abi_minor);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* LDS_LOGDIR_STRATEGY_H */
