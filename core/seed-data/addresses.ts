import type { Rng } from '../util/rng.js';

/** Street addresses for messages that give a place (US style: number, street, city, state, ZIP). */
export const STREET_ADDRESSES: readonly string[] = [
  '41 Willow Lane, Madison, WI 53703',
  '2208 Harbor Rd, Tacoma, WA 98402',
  '17 Chestnut St, Burlington, VT 05401',
  '930 Mesa Dr, Tucson, AZ 85719',
  '58 Orchard Ave, Asheville, NC 28801',
  '1204 Lakeview Blvd, Duluth, MN 55802',
  '77 Beacon St, Portland, ME 04101',
  '315 Sycamore Ct, Boise, ID 83702',
  '6 Riverside Pl, Savannah, GA 31401',
  '480 Granite Way, Reno, NV 89501',
  '1550 Prairie St, Lincoln, NE 68508',
  '23 Juniper Rd, Santa Fe, NM 87501',
  '809 Magnolia Ave, Mobile, AL 36602',
  '64 Aspen Cir, Boulder, CO 80302',
  '1001 Canal St, New Orleans, LA 70112',
];

export function randomAddress(rng: Rng): string {
  return rng.pick(STREET_ADDRESSES);
}
