/** Screens this narrow are phones: frames open full-width in a sheet, terminals get a key bar. */
export const PHONE = "(max-width: 640px)";
