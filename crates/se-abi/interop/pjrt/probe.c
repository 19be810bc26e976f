/* A fake PJRT plugin that breaks one thing at a time, for measuring what a framework (jaxlib)
 * does with a plugin of a given PJRT API version, struct sizes, NULL slots and extension chain.
 *
 * Written from the facts of XLA's xla/pjrt/c/pjrt_c_api.h (the layouts committed under
 * crates/se-abi/pjrt/), without including it: `PJRT_Api` is `struct_size`, `extension_start`,
 * a `PJRT_Api_Version` (`struct_size`, `extension_start`, `major_version`, `minor_version`),
 * then one function pointer per API function, in the header's order. The first slots have kept
 * their places since the first versioned header (0.13): PJRT_Error_Destroy (0),
 * PJRT_Error_Message (1), PJRT_Error_GetCode (2), PJRT_Plugin_Initialize (3),
 * PJRT_Plugin_Attributes (4), PJRT_Client_Create (10).
 *
 * Build-time settings (gcc -shared -fPIC -D...):
 *   PROBE_MAJOR, PROBE_MINOR   the version GetPjrtApi reports (default 0.54)
 *   PROBE_API_SIZE             PJRT_Api.struct_size (default: every slot up to PROBE_SLOTS)
 *   PROBE_SLOTS                how many function slots are filled (default 128, PJRT 0.90's:
 *                              a framework calls a slot only when struct_size reaches it)
 *   PROBE_NULL_SLOT            one slot left NULL (default -1: none)
 *   PROBE_EXT_TYPE             an extension of this PJRT_Extension_Type on the chain (default -1)
 *   PROBE_EXT_SIZE             that extension's struct_size (default 24: the base only); its
 *                              bytes end at a page the process cannot read, so a framework that
 *                              reads past the struct_size it was given faults (SIGSEGV); the
 *                              words past its base are functions that succeed
 *   PROBE_NO_EXPORT            do not export GetPjrtApi
 *   PROBE_DEMAND_SLOT, PROBE_DEMAND_SIZE, PROBE_DEMAND_NAME
 *                              refuse the args of that slot (3, 4 or 10) when their struct_size
 *                              is below PROBE_DEMAND_SIZE, in the words of XLA's
 *                              pjrt_c_api_helpers.cc, as a plugin built with a later header does
 *
 * Every call is logged, one line `slot <index> size <args struct_size>` appended to the file
 * named by $PJRT_PROBE_LOG (when set). PJRT_Client_Create fails with PROBE_NO_DEVICE: the
 * framework accepted the plugin and only the (missing) device stopped it. Every other slot
 * except the error functions, PJRT_Plugin_Initialize and PJRT_Plugin_Attributes (no attributes)
 * fails with UNIMPLEMENTED.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef PROBE_MAJOR
#define PROBE_MAJOR 0
#endif
#ifndef PROBE_MINOR
#define PROBE_MINOR 54
#endif
#ifndef PROBE_SLOTS
#define PROBE_SLOTS 128
#endif
#ifndef PROBE_API_SIZE
#define PROBE_API_SIZE (40 + 8 * PROBE_SLOTS)
#endif
#ifndef PROBE_NULL_SLOT
#define PROBE_NULL_SLOT -1
#endif
#ifndef PROBE_EXT_TYPE
#define PROBE_EXT_TYPE -1
#endif
#ifndef PROBE_EXT_SIZE
#define PROBE_EXT_SIZE 24
#endif

#ifndef PROBE_DEMAND_SLOT
#define PROBE_DEMAND_SLOT -1
#define PROBE_DEMAND_SIZE 0
#define PROBE_DEMAND_NAME "none"
#endif

#define PROBE_NO_DEVICE "PJRT probe: no device (the probe stops at client creation)"

#define SLOT_ERROR_DESTROY 0
#define SLOT_ERROR_MESSAGE 1
#define SLOT_ERROR_GETCODE 2
#define SLOT_PLUGIN_INITIALIZE 3
#define SLOT_PLUGIN_ATTRIBUTES 4
#define SLOT_CLIENT_CREATE 10

/* Absl status codes as PJRT_Error_Code numbers them. */
#define CODE_INTERNAL 13
#define CODE_UNIMPLEMENTED 12

typedef void *slot_fn;

struct probe_version {
  size_t struct_size;
  void *extension_start;
  int major_version;
  int minor_version;
};

struct probe_api {
  size_t struct_size;
  void *extension_start;
  struct probe_version version;
  slot_fn slots[PROBE_SLOTS];
};

struct probe_ext {
  size_t struct_size;
  int type;
  struct probe_ext *next;
};

/* The plugin's PJRT_Error. */
struct probe_error {
  int code;
  char message[300];
};

/* The first words every args struct starts with. */
struct args_head {
  size_t struct_size;
  void *extension_start;
};

static void log_call(int slot, const void *args) {
  const char *path = getenv("PJRT_PROBE_LOG");
  if (path == NULL || args == NULL) return;
  FILE *f = fopen(path, "a");
  if (f == NULL) return;
  fprintf(f, "slot %d size %zu\n", slot, ((const struct args_head *)args)->struct_size);
  fclose(f);
}

static struct probe_error *new_error(int code, const char *message) {
  struct probe_error *e = calloc(1, sizeof *e);
  if (e == NULL) abort();
  e->code = code;
  snprintf(e->message, sizeof e->message, "%s", message);
  return e;
}

/* PJRT_Error_Destroy_Args: struct_size, extension_start, error. */
static void error_destroy(void *args) {
  log_call(SLOT_ERROR_DESTROY, args);
  void **words = args;
  free(words[2]);
}

/* PJRT_Error_Message_Args: struct_size, extension_start, error, message, message_size. */
static void error_message(void *args) {
  log_call(SLOT_ERROR_MESSAGE, args);
  void **words = args;
  const struct probe_error *e = words[2];
  words[3] = (void *)e->message;
  words[4] = (void *)(uintptr_t)strlen(e->message);
}

/* PJRT_Error_GetCode_Args: struct_size, extension_start, error, code (an enum). */
static void *error_getcode(void *args) {
  log_call(SLOT_ERROR_GETCODE, args);
  void **words = args;
  const struct probe_error *e = words[2];
  *(int *)&words[3] = e->code;
  return NULL;
}

/* A later plugin's refusal of a shorter args struct (CODE_INVALID_ARGUMENT is 3). Only a
 * probe built to refuse holds XLA's wording, so that `pjrt-check` reads the others as plugins
 * that do not check. */
static void *demand(int slot, const void *args) {
#if PROBE_DEMAND_SLOT >= 0
  size_t got = ((const struct args_head *)args)->struct_size;
  if (slot != PROBE_DEMAND_SLOT || got >= (size_t)PROBE_DEMAND_SIZE) return NULL;
  struct probe_error *e = new_error(3, "");
  snprintf(e->message, sizeof e->message,
           "Unexpected %s size: expected %d, got %zu. The plugin is likely built with a later "
           "version than the framework. This plugin is built with PJRT API version %d.%d.",
           PROBE_DEMAND_NAME, PROBE_DEMAND_SIZE, got, PROBE_MAJOR, PROBE_MINOR);
  return e;
#else
  (void)slot;
  (void)args;
  return NULL;
#endif
}

static void *plugin_initialize(void *args) {
  log_call(SLOT_PLUGIN_INITIALIZE, args);
  void *refused = demand(SLOT_PLUGIN_INITIALIZE, args);
  if (refused != NULL) return refused;
  return NULL;
}

/* PJRT_Plugin_Attributes_Args: struct_size, extension_start, attributes, num_attributes (the
 * last only where the caller's struct_size reaches it). */
static void *plugin_attributes(void *args) {
  log_call(SLOT_PLUGIN_ATTRIBUTES, args);
  void *refused = demand(SLOT_PLUGIN_ATTRIBUTES, args);
  if (refused != NULL) return refused;
  void **words = args;
  size_t size = ((struct args_head *)args)->struct_size;
  if (size >= 24) words[2] = NULL;
  if (size >= 32) words[3] = NULL;
  return NULL;
}

static void *client_create(void *args) {
  log_call(SLOT_CLIENT_CREATE, args);
  void *refused = demand(SLOT_CLIENT_CREATE, args);
  if (refused != NULL) return refused;
  return new_error(CODE_INTERNAL, PROBE_NO_DEVICE);
}

/* One stub per other slot: logs its index, fails with UNIMPLEMENTED. */
#define STUB(n)                                                   \
  static void *stub_##n(void *args) {                             \
    log_call(n, args);                                            \
    return new_error(CODE_UNIMPLEMENTED, "PJRT probe: slot " #n); \
  }
#define STUB10(t) STUB(t##0) STUB(t##1) STUB(t##2) STUB(t##3) STUB(t##4) \
  STUB(t##5) STUB(t##6) STUB(t##7) STUB(t##8) STUB(t##9)
STUB(0) STUB(1) STUB(2) STUB(3) STUB(4) STUB(5) STUB(6) STUB(7) STUB(8) STUB(9)
STUB10(1) STUB10(2) STUB10(3) STUB10(4) STUB10(5) STUB10(6) STUB10(7) STUB10(8) STUB10(9)
STUB10(10) STUB10(11) STUB10(12) STUB10(13) STUB10(14) STUB10(15) STUB10(16) STUB10(17)
STUB10(18) STUB10(19)
#define REF(n) (slot_fn) stub_##n,
#define REF10(t) REF(t##0) REF(t##1) REF(t##2) REF(t##3) REF(t##4) REF(t##5) REF(t##6) \
  REF(t##7) REF(t##8) REF(t##9)
static const slot_fn stubs[200] = {
    REF(0) REF(1) REF(2) REF(3) REF(4) REF(5) REF(6) REF(7) REF(8) REF(9)
    REF10(1) REF10(2) REF10(3) REF10(4) REF10(5) REF10(6) REF10(7) REF10(8) REF10(9)
    REF10(10) REF10(11) REF10(12) REF10(13) REF10(14) REF10(15) REF10(16) REF10(17)
    REF10(18) REF10(19)};

static struct probe_api api;

static void *ext_noop(void *args) {
  (void)args;
  return NULL;
}

/* The extension, placed so that its last byte is the last readable one. */
static struct probe_ext *guarded_extension(void) {
  long page = sysconf(_SC_PAGESIZE);
  size_t size = PROBE_EXT_SIZE < sizeof(struct probe_ext) ? sizeof(struct probe_ext)
                                                          : (size_t)PROBE_EXT_SIZE;
  size_t pages = (size + (size_t)page - 1) / (size_t)page + 1;
  char *base = mmap(NULL, pages * (size_t)page, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base == MAP_FAILED) abort();
  char *guard = base + (pages - 1) * (size_t)page;
  if (mprotect(guard, (size_t)page, PROT_NONE) != 0) abort();
  /* Round down to 8 so the base members stay aligned; the struct ends at most 7 bytes early. */
  struct probe_ext *ext = (struct probe_ext *)(((uintptr_t)guard - size) & ~(uintptr_t)7);
  /* Past the base, every word is a function that does nothing and succeeds: a release that
   * calls a function of the extension survives, one that reads past struct_size faults. */
  for (size_t at = sizeof(struct probe_ext); at + sizeof(slot_fn) <= size; at += sizeof(slot_fn))
    *(slot_fn *)((char *)ext + at) = (slot_fn)ext_noop;
  ext->struct_size = PROBE_EXT_SIZE;
  ext->type = PROBE_EXT_TYPE;
  ext->next = NULL;
  return ext;
}

#ifndef PROBE_NO_EXPORT
__attribute__((visibility("default")))
#endif
const void *GetPjrtApi(void) {
  if (api.struct_size == 0) {
    for (int i = 0; i < PROBE_SLOTS && i < 200; i++) api.slots[i] = stubs[i];
    api.slots[SLOT_ERROR_DESTROY] = (slot_fn)error_destroy;
    api.slots[SLOT_ERROR_MESSAGE] = (slot_fn)error_message;
    api.slots[SLOT_ERROR_GETCODE] = (slot_fn)error_getcode;
    api.slots[SLOT_PLUGIN_INITIALIZE] = (slot_fn)plugin_initialize;
    api.slots[SLOT_PLUGIN_ATTRIBUTES] = (slot_fn)plugin_attributes;
    api.slots[SLOT_CLIENT_CREATE] = (slot_fn)client_create;
    if (PROBE_NULL_SLOT >= 0 && PROBE_NULL_SLOT < PROBE_SLOTS) api.slots[PROBE_NULL_SLOT] = NULL;
    api.version.struct_size = 24;
    api.version.major_version = PROBE_MAJOR;
    api.version.minor_version = PROBE_MINOR;
    if (PROBE_EXT_TYPE >= 0) api.extension_start = guarded_extension();
    api.struct_size = PROBE_API_SIZE;
  }
  return &api;
}
