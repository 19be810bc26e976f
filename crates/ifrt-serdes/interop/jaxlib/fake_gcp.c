/* Preloaded (LD_PRELOAD) into a jaxlib client so that gRPC's ALTS credentials run on a machine
 * that is not a Google Cloud VM, against the fake handshaker of alts_handshaker.py.
 *
 * gRPC's ALTS code does two things that need a cloud VM, and this library answers both:
 *  1. It reads the DMI product name to decide whether it runs on GCP: opening that one file
 *     gives the text "Google Compute Engine" instead.
 *  2. It dials its handshaker service at metadata.google.internal: resolving that name gives
 *     127.0.0.1, on the port in $FAKE_HANDSHAKER_PORT (when set). gRPC must resolve names with
 *     getaddrinfo for this: run with GRPC_DNS_RESOLVER=native.
 * Every other call goes straight to the C library. For tests on one machine only.
 *
 * Build: cc -shared -fPIC -O2 -o fake_gcp.so fake_gcp.c -ldl                                 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char kDmiProductName[] = "/sys/class/dmi/id/product_name";
static char gce_product[] = "Google Compute Engine\n";
static const char kHandshakerHost[] = "metadata.google.internal";

/* The in-memory stand-in for the DMI file, or NULL for any other path. */
static FILE *dmi_stand_in(const char *path) {
  if (path == NULL || strcmp(path, kDmiProductName) != 0) return NULL;
  return fmemopen(gce_product, sizeof gce_product - 1, "r");
}

typedef FILE *(*fopen_fn)(const char *, const char *);

FILE *fopen(const char *path, const char *mode) {
  static fopen_fn next_fopen;
  FILE *stand_in = dmi_stand_in(path);
  if (stand_in != NULL) return stand_in;
  if (next_fopen == NULL) next_fopen = (fopen_fn)dlsym(RTLD_NEXT, "fopen");
  return next_fopen(path, mode);
}

FILE *fopen64(const char *path, const char *mode) {
  static fopen_fn next_fopen64;
  FILE *stand_in = dmi_stand_in(path);
  if (stand_in != NULL) return stand_in;
  if (next_fopen64 == NULL) next_fopen64 = (fopen_fn)dlsym(RTLD_NEXT, "fopen64");
  return next_fopen64(path, mode);
}

typedef int (*getaddrinfo_fn)(const char *, const char *, const struct addrinfo *,
                              struct addrinfo **);

int getaddrinfo(const char *node, const char *service, const struct addrinfo *hints,
                struct addrinfo **res) {
  static getaddrinfo_fn next_getaddrinfo;
  if (next_getaddrinfo == NULL) next_getaddrinfo = (getaddrinfo_fn)dlsym(RTLD_NEXT, "getaddrinfo");
  if (node != NULL && strncmp(node, kHandshakerHost, sizeof kHandshakerHost - 1) == 0) {
    const char *port = getenv("FAKE_HANDSHAKER_PORT");
    return next_getaddrinfo("127.0.0.1", port != NULL ? port : service, hints, res);
  }
  return next_getaddrinfo(node, service, hints, res);
}
