/** The siphash24 package (SipHash-2-4 in WebAssembly, with a JavaScript fallback; CommonJS), which ships no typings. */
declare module 'siphash24' {
  /** Writes SipHash-2-4 of `data` keyed with the 16-byte `key` into `out` (8 bytes, made when absent) and returns it. */
  function siphash24(data: Uint8Array, key: Uint8Array, out?: Uint8Array, noAssert?: boolean): Uint8Array;
  export default siphash24;
}
