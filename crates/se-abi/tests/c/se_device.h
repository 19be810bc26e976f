/* The seed's SE_Device at header versions 1 to 5, for the se-abi C-interop matrix.
 *
 * Compile with -DSE_DEVICE_VERSION=N (1..5). Each version only appends members or deprecates one
 * in place, exactly as the StreamExecutor C API versioning RFC prescribes
 * (tensorflow/community rfcs/20200612-stream-executor-c-api/C_API_versioning_strategy.md). */
#ifndef SE_ABI_TEST_SE_DEVICE_H_
#define SE_ABI_TEST_SE_DEVICE_H_

#include <stddef.h>
#include <stdint.h>

#ifndef SE_DEVICE_VERSION
#error "define SE_DEVICE_VERSION (1..5)"
#endif

#define SE_OFFSET_OF_END(TYPE, MEMBER) (offsetof(TYPE, MEMBER) + sizeof(((TYPE *)0)->MEMBER))

typedef struct SE_Device {
  size_t struct_size;
  void *next; /* reserved, always NULL */
  const char *name; /* NULL is no-op */
  size_t name_len;
#if SE_DEVICE_VERSION >= 2
  void *device_handle; /* NULL is no-op */
#endif
#if SE_DEVICE_VERSION >= 3
  void *data; /* NULL is no-op. Deprecated in version 4: no longer read or set. */
#endif
#if SE_DEVICE_VERSION >= 5
  void *data2; /* NULL is no-op. Replaces `data`. */
#endif
} SE_Device;

#if SE_DEVICE_VERSION == 1
#define SE_DEVICE_STRUCT_SIZE SE_OFFSET_OF_END(SE_Device, name_len)
#elif SE_DEVICE_VERSION == 2
#define SE_DEVICE_STRUCT_SIZE SE_OFFSET_OF_END(SE_Device, device_handle)
#elif SE_DEVICE_VERSION <= 4
#define SE_DEVICE_STRUCT_SIZE SE_OFFSET_OF_END(SE_Device, data)
#else
#define SE_DEVICE_STRUCT_SIZE SE_OFFSET_OF_END(SE_Device, data2)
#endif

/* What a host saw: filled by every host (C and Rust) so the matrix compares them alike.
 * Not versioned: test plumbing only. */
enum {
  SE_SEEN_NAME = 1,
  SE_SEEN_NAME_LEN = 2,
  SE_SEEN_DEVICE_HANDLE = 4,
  SE_SEEN_DATA = 8,
  SE_SEEN_DATA2 = 16
};
enum { SE_STATUS_OK = 0, SE_STATUS_UNINITIALIZED = 1, SE_STATUS_HAZARD_NULL_DATA = 2 };

typedef struct SE_Observation {
  uint32_t host_version;
  uint32_t status;
  uint64_t struct_size;
  uint32_t seen;
  uint32_t pad;
  const char *name;
  uint64_t name_len;
  void *device_handle;
  void *data;
  void *data2;
} SE_Observation;

/* The values a plugin of version V sets (never dereferenced: fake handles). */
#define SE_FAKE_HANDLE(V) ((void *)(uintptr_t)(0x1000u * (V) + 0x2u))
#define SE_FAKE_DATA(V) ((void *)(uintptr_t)(0x3000u * (V) + 0x4u))
#define SE_FAKE_DATA2(V) ((void *)(uintptr_t)(0x5000u * (V) + 0x6u))

#endif /* SE_ABI_TEST_SE_DEVICE_H_ */
