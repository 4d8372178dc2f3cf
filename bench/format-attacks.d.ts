/** One long value per format, built to make its original check work hard; each fails the format. */
export declare const FORMAT_ATTACKS: Record<string, string>;
