/** When a stored object (a domain, a record) was made and last changed, in epoch milliseconds. */
export interface Timestamps {
  created: number;
  updated: number;
}
