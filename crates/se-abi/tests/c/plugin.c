/* A C plugin built against SE_Device version SE_DEVICE_VERSION, in the two ways a struct changes
 * hands:
 * - se_plugin_create_device: the plugin allocates exactly SE_DEVICE_STRUCT_SIZE bytes (not
 *   sizeof), so a host reading past the producer's struct_size touches memory outside the block,
 *   which valgrind reports;
 * - se_plugin_fill_device: the host allocated the struct and set its struct_size (as TensorFlow
 *   does); the plugin reads it first, writes only the members that fit, and sets struct_size to
 *   the smaller of the two sizes.
 *
 * -DSE_PLUGIN_OVERWRITE: a deliberately broken fill that writes the plugin's whole struct whatever
 *   the host's size; only for proving that valgrind catches a write past an older host's block.
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

/* The plugin's struct, zero-filled like TensorFlow's `SE_Device{SE_DEVICE_STRUCT_SIZE}`. */
static void se_plugin_set(SE_Device *device) {
  memset(device, 0, sizeof(*device));
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
}

SE_Device *se_plugin_create_device(void) {
  SE_Device *device = (SE_Device *)malloc(SE_DEVICE_STRUCT_SIZE);
  if (device == NULL) return NULL;
  SE_Device mine;
  se_plugin_set(&mine);
  memcpy(device, &mine, SE_DEVICE_STRUCT_SIZE);
  return device;
}

int se_plugin_fill_device(SE_Device *device) {
  size_t host_size = device->struct_size;
  if (host_size == 0) return 1; /* the host did not say how much it allocated */
  SE_Device mine;
  se_plugin_set(&mine);
#ifdef SE_PLUGIN_OVERWRITE
  size_t size = SE_DEVICE_STRUCT_SIZE; /* BUG on purpose: ignores the host's size */
#else
  size_t size = host_size < SE_DEVICE_STRUCT_SIZE ? host_size : SE_DEVICE_STRUCT_SIZE;
#endif
  memcpy(device, &mine, size);
  device->struct_size = size;
  return 0;
}

void se_plugin_destroy_device(SE_Device *device) { free(device); }

unsigned se_plugin_header_version(void) { return SE_DEVICE_VERSION; }
