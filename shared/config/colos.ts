/**
 * The largest Cloudflare data centres (IATA codes) by location-hint region, to flag samples whose
 * colo lies in another region. A colo missing here is unknown: neither inside nor outside.
 */
import type { LocationHint } from './types.ts';

const COLOS: Record<LocationHint, string> = {
  wnam: 'SEA PDX SFO SJC LAX SAN LAS PHX DEN SLC YVR YYC ABQ SMF FAT OAK',
  enam: 'ORD DFW IAH ATL MIA IAD EWR JFK BOS PHL CLT MSP DTW YYZ YUL MCI STL CMH PIT IND BNA TPA MCO RDU BUF',
  sam: 'GRU GIG SCL EZE BOG LIM UIO MDE CWB POA FOR BSB SSA REC MVD ASU',
  weur: 'LHR LGW MAN EDI DUB AMS FRA CDG MRS MAD BCN LIS MXP FCO ZRH GVA BRU CPH ARN OSL HEL HAM DUS MUC STR VIE LUX',
  eeur: 'WAW PRG BUD OTP SOF BEG ZAG KBP RIX TLL VNO ATH IST KIV',
  apac: 'NRT KIX HND ICN HKG TPE SIN KUL BKK CGK MNL SGN HAN BOM DEL MAA BLR HYD CCU CMB DAC KHI ISB',
  oc: 'SYD MEL BNE PER ADL AKL CHC',
  afr: 'JNB CPT DUR LOS NBO ACC CAI CMN DAR KGL',
  me: 'DXB AUH DOH BAH KWI MCT RUH JED AMM TLV BEY',
};

const REGION_OF = new Map<string, LocationHint>();
for (const [region, codes] of Object.entries(COLOS)) for (const code of codes.split(' ')) REGION_OF.set(code, region as LocationHint);

/** true: the colo is known to lie in another region; false: in this one; null: not known. */
export function coloOutsideRegion(colo: string | null, region: LocationHint): boolean | null {
  if (!colo) return null;
  const actual = REGION_OF.get(colo.toUpperCase());
  return actual === undefined ? null : actual !== region;
}
