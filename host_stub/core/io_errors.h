// io_errors.h: which failures of a log operation are the disk's, and which are the process's own.
//
// Only a disk's failure takes a log directory offline (EIO, EROFS, a directory gone, ...). A
// broker short of descriptors or memory (EMFILE, ENFILE, ENOMEM, ENOBUFS) fails that one request
// instead: the disk is fine, and marking it offline would turn a passing shortage into lost
// capacity until a restart.
#pragma once

#include <string>

namespace lds {

// Whether `error_number` (an errno value) says the process ran short of a resource rather than
// that the disk failed.
bool is_resource_shortage(int error_number) noexcept;

// "the broker is short of file descriptors (Too many open files)", for a request's error.
std::string resource_shortage_text(int error_number);

}  // namespace lds
