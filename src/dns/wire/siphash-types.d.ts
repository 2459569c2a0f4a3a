/** The siphash package (SipHash-2-4 in JavaScript, CommonJS), which ships no typings. */
declare module 'siphash' {
  const siphash: {
    /** The 64-bit hash as its high and low 32 bits; `key` is the 16-byte key as four little-endian words. */
    hash(key: Uint32Array | readonly number[], message: Uint8Array | string): { h: number; l: number };
  };
  export default siphash;
}
