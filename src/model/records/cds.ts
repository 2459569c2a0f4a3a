/** CDS (RFC 7344 3.1): DS's fields and format under its own name and number, at a signed zone's apex. */
import { delegationSigner } from './ds.js';
import type { RecordType } from './types.js';

export const CDS: RecordType = delegationSigner('CDS', 59, 'Child DS: the DS record a signed zone asks its parent for (RFC 7344), published by the signer', true);
