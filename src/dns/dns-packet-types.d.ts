/** dns-packet's type-mnemonic table, which its published typings leave out. */
declare module 'dns-packet/types.js' {
  const types: { toType(name: string): number };
  export default types;
}
