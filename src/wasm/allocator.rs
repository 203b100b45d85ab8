//! The wasm module's memory allocator: talc in place of the standard library's dlmalloc, a
//! smaller module (BENCHMARKS.md "Size") with the same behaviour when memory runs out (an
//! allocation fails, and the fallible reservations turn that into `OUT_OF_MEMORY`).

/// The global allocator of the wasm32 build: grows the wasm memory as it needs to.
#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();
