/**
 * EDNS(0) padding (RFC 7830) in blocks (RFC 8467 4.1: a response padded to a multiple of 468 octets), added to
 * a response already encoded, so that its length over an encrypted transport says little about what it holds.
 * The OPT record is the response's last record (until a TSIG is added after it): the Padding option goes at the
 * end of its data, its RDLENGTH grows, and no count changes. An answer to be signed is padded before it is (the
 * option is under the MAC, RFC 7830 4), leaving room for its TSIG record so that the message sent, TSIG
 * included, is a multiple of the block: its length on the wire is what the padding hides.
 */
import { META_TYPE, TCP_MAX } from './message.js';
import { readRecords } from './wire-record.js';

/** The Padding option's code (RFC 7830 3). */
export const PADDING_OPTION = 12;
/** RFC 8467's recommended block for responses. */
export const RESPONSE_BLOCK = 468;

/**
 * `msg` padded so that, with the `tsig` octets of a TSIG record still to be added, it is a multiple of `block`
 * octets; or `msg` itself when it has no OPT record (the query had no EDNS), when it is signed already (the
 * padding would have to go in under the MAC: pad it before signing), or when the padded message would not fit
 * in a DNS message.
 */
export function padResponse(msg: Buffer, tsig = 0, block = RESPONSE_BLOCK): Buffer {
  let last;
  try {
    last = readRecords(msg).at(-1);
  } catch {
    return msg;
  }
  // The OPT record ends the message: that is where its data, and now the option, ends.
  if (last?.type !== META_TYPE.OPT || last.end !== msg.length) return msg;
  const sent = Math.ceil((msg.length + 4 + tsig) / block) * block;
  if (sent > TCP_MAX) return msg;
  const length = sent - tsig;
  const out = Buffer.alloc(length);
  msg.copy(out);
  out.writeUInt16BE(PADDING_OPTION, msg.length);
  out.writeUInt16BE(length - msg.length - 4, msg.length + 2);
  out.writeUInt16BE(last.rdlength + length - msg.length, last.rdata - 2);
  return out;
}
