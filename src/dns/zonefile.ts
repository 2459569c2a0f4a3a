/** The zone-file export now lives in the model (src/model/zonefile.ts), where interface B may use it too. */
export { zoneFile } from '../model/zonefile.js';
