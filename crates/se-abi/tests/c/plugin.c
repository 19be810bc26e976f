/* A C plugin built against SE_Device version SE_DEVICE_VERSION. It allocates exactly
 * SE_DEVICE_STRUCT_SIZE bytes (not sizeof), so a host reading past the producer's struct_size
 * touches memory outside the block, which valgrind reports.
 *
 * -DSE_PLUGIN_KEEP_DEPRECATED (version 4 and later): the seed's forward-compatibility rule, a
 *   plugin that keeps setting the deprecated `data` for older hosts that read it without
 *   validating it. */
#include <stdlib.h>
#include <string.h>

#include "se_device.h"

#define SE_STR2(x) #x
#define SE_STR(x) SE_STR2(x)
static const char kName[] = "c-plugin-v" SE_STR(SE_DEVICE_VERSION);

SE_Device *se_plugin_create_device(void) {
  SE_Device *device = (SE_Device *)malloc(SE_DEVICE_STRUCT_SIZE);
  if (device == NULL) return NULL;
  /* Zero-fill what we own, like TensorFlow's `SE_Device{SE_DEVICE_STRUCT_SIZE}`. */
  memset(device, 0, SE_DEVICE_STRUCT_SIZE);
  device->struct_size = SE_DEVICE_STRUCT_SIZE;
  device->name = kName;
  device->name_len = sizeof(kName) - 1;
#if SE_DEVICE_VERSION >= 2
  device->device_handle = SE_FAKE_HANDLE(SE_DEVICE_VERSION);
#endif
#if SE_DEVICE_VERSION == 3
  device->data = SE_FAKE_DATA(SE_DEVICE_VERSION);
#endif
#if SE_DEVICE_VERSION >= 4
#ifdef SE_PLUGIN_KEEP_DEPRECATED
  device->data = SE_FAKE_DATA(SE_DEVICE_VERSION);
#endif
  /* Otherwise: version 4 deprecated `data`, and from then on the plugin leaves it zero. */
#endif
#if SE_DEVICE_VERSION >= 5
  device->data2 = SE_FAKE_DATA2(SE_DEVICE_VERSION);
#endif
  return device;
}

void se_plugin_destroy_device(SE_Device *device) { free(device); }

unsigned se_plugin_header_version(void) { return SE_DEVICE_VERSION; }
