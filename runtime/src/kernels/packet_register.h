// Keeping a loaded SIMD packet in its register (runtime internals): GCC folds a load into every
// FMA that reads the value (one load per use), and in the step's products the loads, not the
// FMAs, then bound the loop. An empty asm that "changes" the packet pins it to a register.
// Used by the lanes' shared products, the symmetric panel kernel and the system force.
#pragma once

namespace ramus {

/// Pins `packet` (an SSE / AVX vector value) to a register from here on; no code.
template <class P>
inline void in_register(P& packet) noexcept {
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
  asm("" : "+x"(packet));
#else
  (void)packet;
#endif
}

}  // namespace ramus
