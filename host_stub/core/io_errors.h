// io_errors.h: which failures of a log operation are the disk's, and which are the process's own.
//
// Only a disk's failure takes a log directory offline (EIO, EROFS, a directory gone, ...). A
// broker short of descriptors or memory (EMFILE, ENFILE, ENOMEM, ENOBUFS) fails that one request
// instead: the disk is fine, and marking it offline would turn a passing shortage into lost
// capacity until a restart.
#pragma once

#include <cstdint>
#include <string>

namespace lds {

// Whether `error_number` (an errno value) says the process ran short of a resource rather than
// that the disk failed.
bool is_resource_shortage(int error_number) noexcept;

// "the broker is short of file descriptors (Too many open files)", for a request's error.
std::string resource_shortage_text(int error_number);

// Whether `error_number` says the filesystem is full (ENOSPC) or the user's quota is spent
// (EDQUOT). A full disk is not a failed one: the request that ran out fails, the directory stays
// online. Produce and replica moves classify with this one function.
bool is_out_of_space(int error_number) noexcept;

// "Not enough space in /d2 to move t-0: 64.0 MiB needed, 12.0 MiB free.", the sentence a move
// refused or failed for space carries (KAFKA_STORAGE_ERROR).
std::string not_enough_space_to_move(const std::string& dir, const std::string& partition,
                                     uint64_t needed, uint64_t free);

}  // namespace lds
