/** dns-packet's type-mnemonic table, which its published typings leave out. */
declare module 'dns-packet/types.js' {
  const types: { toType(name: string): number; toString(type: number): string };
  export default types;
}
