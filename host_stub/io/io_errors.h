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

// Whether `error_number` says a name cannot be made (ENAMETOOLONG: an entry past 255 bytes or a
// path past PATH_MAX). The name is at fault, not the disk: the request that needed it fails with
// a sentence naming the path, and the directory stays online.
bool is_name_too_long(int error_number) noexcept;

// "Cannot create t-0 in /d1: the name /d1/t-0 is too long for the filesystem (File name too
// long); the log directory stays online.", a request's error for such a name.
std::string name_too_long_text(const std::string& what, const std::string& dir,
                               const std::string& path, int error_number);

// Whether `error_number` says the filesystem is full (ENOSPC) or the user's quota is spent
// (EDQUOT). A full disk is not a failed one: the request that ran out fails, the directory stays
// online. Produce and replica moves classify with this one function.
bool is_out_of_space(int error_number) noexcept;

// "its filesystem is full (No space left on device)", or for EDQUOT "its disk quota is spent
// (Disk quota exceeded)": what a request that ran out of space says of its directory.
std::string out_of_space_text(int error_number);

// "Not enough space in /d2 to move t-0: 64.0 MiB needed, 12.0 MiB free.", the sentence a move
// refused or failed for space carries (KAFKA_STORAGE_ERROR).
std::string not_enough_space_to_move(const std::string& dir, const std::string& partition,
                                     uint64_t needed, uint64_t free);

// "Not enough space in /d2 to move t-0: its filesystem is full (No space left on device).", for a
// move the filesystem refused (`error_number` ENOSPC or EDQUOT) although the byte count said it
// fits: an empty partition's mkdir on a full disk, or space taken behind the broker's back. A
// sentence of "0 B needed, 0 B free" would not tell the operator what is wrong.
std::string filesystem_full_for_move(const std::string& dir, const std::string& partition,
                                     int error_number);

// Whether `message` is one of the two sentences above: the move failed for space, so a move at
// least as large into the same directory would fail too.
bool is_out_of_space_for_move(const std::string& message) noexcept;

}  // namespace lds
