/* A C host built against SE_Device version SE_DEVICE_VERSION. It reads a member only when the
 * producer's struct reaches it (`struct_size > offsetof(member)`) and, for "NULL is no-op"
 * members, only when it is not NULL.
 *
 * -DSE_HOST_UNVALIDATED (version 3 only): the documented hazard, a host that trusts `data` to be
 *   set once struct_size reaches it. Instead of dereferencing NULL it reports the case.
 * -DSE_HOST_OVER_READ (version 5 only): a deliberately broken host that reads `data2` without the
 *   struct_size check; only for proving that valgrind catches an over-read.
 *
 * se_host_fill_and_consume: the host allocates the struct (exactly SE_DEVICE_STRUCT_SIZE bytes,
 * zero-filled, struct_size set, as TensorFlow does), lets the plugin fill it, then consumes it; a
 * plugin that writes past the host's struct_size writes outside the block, which valgrind
 * reports. */
#include <stdlib.h>
#include <string.h>

#include "se_device.h"

#define SE_REACHES(DEV, MEMBER) ((DEV)->struct_size > offsetof(SE_Device, MEMBER))

int se_host_consume(const SE_Device *device, SE_Observation *out) {
  memset(out, 0, sizeof(*out));
  out->host_version = SE_DEVICE_VERSION;
  if (device->struct_size == 0) {
    out->status = SE_STATUS_UNINITIALIZED;
    return 1;
  }
  out->struct_size = device->struct_size;
  if (SE_REACHES(device, name) && device->name != NULL) {
    out->seen |= SE_SEEN_NAME;
    out->name = device->name;
  }
  if (SE_REACHES(device, name_len)) {
    out->seen |= SE_SEEN_NAME_LEN;
    out->name_len = device->name_len;
  }
#if SE_DEVICE_VERSION >= 2
  if (SE_REACHES(device, device_handle) && device->device_handle != NULL) {
    out->seen |= SE_SEEN_DEVICE_HANDLE;
    out->device_handle = device->device_handle;
  }
#endif
#if SE_DEVICE_VERSION == 3 /* from version 4 on `data` is deprecated: never read */
#ifdef SE_HOST_UNVALIDATED
  if (SE_REACHES(device, data)) {
    if (device->data == NULL) {
      /* This host would dereference `data` here: the hazard, detected instead of a crash. */
      out->status = SE_STATUS_HAZARD_NULL_DATA;
    } else {
      out->seen |= SE_SEEN_DATA;
      out->data = device->data;
    }
  }
#else
  if (SE_REACHES(device, data) && device->data != NULL) {
    out->seen |= SE_SEEN_DATA;
    out->data = device->data;
  }
#endif
#endif
#if SE_DEVICE_VERSION >= 5
#ifdef SE_HOST_OVER_READ
  out->seen |= SE_SEEN_DATA2;
  out->data2 = device->data2; /* BUG on purpose: no struct_size check */
#else
  if (SE_REACHES(device, data2) && device->data2 != NULL) {
    out->seen |= SE_SEEN_DATA2;
    out->data2 = device->data2;
  }
#endif
#endif
  return out->status == SE_STATUS_OK ? 0 : 1;
}

int se_host_fill_and_consume(int (*fill)(SE_Device *), SE_Observation *out) {
  SE_Device *device = (SE_Device *)malloc(SE_DEVICE_STRUCT_SIZE);
  if (device == NULL) return -1;
  memset(device, 0, SE_DEVICE_STRUCT_SIZE);
  device->struct_size = SE_DEVICE_STRUCT_SIZE;
  if (fill(device) != 0) {
    free(device);
    return -1;
  }
  int rc = se_host_consume(device, out);
  free(device);
  return rc;
}
