// thread_annotations.h: Clang's thread-safety attributes, so that the compiler checks which lock
// guards what (-Wthread-safety, on in every Clang build). Other compilers see nothing.
#pragma once

#if defined(__clang__)
#define LDS_THREAD_ANNOTATION(x) __attribute__((x))
#else
#define LDS_THREAD_ANNOTATION(x)
#endif

// A type that is a lock.
#define CAPABILITY(name) LDS_THREAD_ANNOTATION(capability(name))
// A type whose objects hold a lock from construction to destruction.
#define SCOPED_CAPABILITY LDS_THREAD_ANNOTATION(scoped_lockable)
// A field read and written only with `mu` held.
#define GUARDED_BY(mu) LDS_THREAD_ANNOTATION(guarded_by(mu))
// A pointer field whose pointee is read and written only with `mu` held.
#define PT_GUARDED_BY(mu) LDS_THREAD_ANNOTATION(pt_guarded_by(mu))
// Locks that must be taken before this one.
#define ACQUIRED_AFTER(...) LDS_THREAD_ANNOTATION(acquired_after(__VA_ARGS__))
// A function called with the locks held, which it leaves held.
#define REQUIRES(...) LDS_THREAD_ANNOTATION(requires_capability(__VA_ARGS__))
// A function called without the locks, which it may take.
#define EXCLUDES(...) LDS_THREAD_ANNOTATION(locks_excluded(__VA_ARGS__))
// A function that takes the locks and returns holding them.
#define ACQUIRE(...) LDS_THREAD_ANNOTATION(acquire_capability(__VA_ARGS__))
// A function that lets go of locks it was called with.
#define RELEASE(...) LDS_THREAD_ANNOTATION(release_capability(__VA_ARGS__))
// A function after whose call the analysis takes the lock as held.
#define ASSERT_CAPABILITY(x) LDS_THREAD_ANNOTATION(assert_capability(x))
// A function that returns the lock named.
#define RETURN_CAPABILITY(x) LDS_THREAD_ANNOTATION(lock_returned(x))
// A function the analysis does not follow: its locking is stated in a comment beside it.
#define NO_THREAD_SAFETY_ANALYSIS LDS_THREAD_ANNOTATION(no_thread_safety_analysis)
