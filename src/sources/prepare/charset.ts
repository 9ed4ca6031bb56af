/**
 * Decodes a body in its declared charset. Node 20's TextDecoder reads windows-1252 (the
 * charset the Web uses for every `latin1`/`iso-8859-1` label) as ISO-8859-1, turning
 * its curly quotes, dashes and euro sign into invisible C1 controls; they are mapped here.
 */
const WINDOWS_1252_HIGH: Record<number, string> = {
  0x80: "€", 0x82: "‚", 0x83: "ƒ", 0x84: "„", 0x85: "…", 0x86: "†", 0x87: "‡", 0x88: "ˆ", 0x89: "‰", 0x8a: "Š",
  0x8b: "‹", 0x8c: "Œ", 0x8e: "Ž", 0x91: "‘", 0x92: "’", 0x93: "“", 0x94: "”", 0x95: "•", 0x96: "–", 0x97: "—",
  0x98: "˜", 0x99: "™", 0x9a: "š", 0x9b: "›", 0x9c: "œ", 0x9e: "ž", 0x9f: "Ÿ",
};

/** Throws RangeError for a charset label TextDecoder does not know. */
export function decodeWithCharset(bytes: Uint8Array, charset: string): string {
  const decoder = new TextDecoder(charset);
  const text = decoder.decode(bytes);
  if (decoder.encoding !== "windows-1252") return text;
  return text.replace(/[\u0080-\u009f]/g, (char) => WINDOWS_1252_HIGH[char.charCodeAt(0)] ?? char);
}
