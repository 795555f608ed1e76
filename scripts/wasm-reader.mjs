// A cursor over the bytes of a .wasm file: its sections, and the unsigned
// LEB128 numbers and names inside them (scripts/without-multivalue.mjs and
// tests/js/wasm_imports.test.mjs read the module with it).
export class WasmReader {
  constructor(bytes) {
    this.bytes = bytes;
    this.at = 8; // after the magic number and the version
  }

  byte() {
    return this.bytes[this.at++];
  }

  u32() {
    let value = 0;
    let shift = 0;
    let byte;
    do {
      byte = this.bytes[this.at++];
      value += (byte & 0x7f) * 2 ** shift;
      shift += 7;
    } while (byte & 0x80);
    return value;
  }

  name() {
    const length = this.u32();
    const text = Buffer.from(this.bytes.buffer, this.bytes.byteOffset + this.at, length).toString('utf8');
    this.at += length;
    return text;
  }

  /** Each section's id; after the caller's turn the cursor moves to the next one. */
  *sections() {
    while (this.at < this.bytes.length) {
      const id = this.byte();
      const end = this.u32() + this.at;
      yield id;
      this.at = end;
    }
  }
}
