//! The fence around the kernel: NUMA memory-policy and affinity syscalls, memory mappings.
//! All `unsafe` of this kind lives under this module, each block with a `// SAFETY:` line.
