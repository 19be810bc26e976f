/* A shim around the probe plugin (examples/tf_probe.rs): a library with no code of its own that
 * needs the probe (DT_NEEDED, found through its run path) and whatever else it is linked with,
 * as real plugins need libraries beside them and TensorFlow's own. TensorFlow finds the probe's
 * SE_InitPlugin through the shim's handle (dlsym searches the library's dependencies).
 *
 * -DIMPORT_C: the shim also imports a TensorFlow C API function (TF_SetStatus), as a plugin that
 *   calls it directly does.
 * -DIMPORT_VERSIONED: it imports a C++ function of TensorFlow's with an ELF symbol version, as
 *   tensorflow-directml-plugin does (linked against a stub that defines it at version
 *   `tensorflow`). */
#ifdef IMPORT_C
extern void TF_SetStatus(void *status, int code, const char *message);
void *se_abi_probe_shim_c = (void *)&TF_SetStatus;
#endif
#ifdef IMPORT_VERSIONED
extern void _ZN10tensorflow8internal15LogMessageFatalD1Ev(void);
void *se_abi_probe_shim_versioned = (void *)&_ZN10tensorflow8internal15LogMessageFatalD1Ev;
#endif
int se_abi_probe_shim;
