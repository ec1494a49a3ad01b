// The tensor types of ggml (ggml/include/ggml.h: enum ggml_type, and the
// block structs of ggml/src/ggml-common.h) that a GGUF file's tensor infos
// name by number: for each, the elements of one block and its bytes. A
// tensor's rows (its first dimension, ne[0]) are whole blocks, so its size
// in the file is (elements / blockElements) × blockBytes. `read` marks the
// types the engine reads (src/core/dtype.hpp's DType, decoded by
// src/model/ggml_blocks.hpp; the model build's dtypeNames() lists the same);
// the others are known so that a file holding them is refused by name
// rather than as a bad number.

/** ggml's type number → { name, blockElements, blockBytes, read }. */
export const GGML_TYPES = Object.freeze(
  new Map(
    [
      [0, 'F32', 1, 4, true],
      [1, 'F16', 1, 2, true],
      [2, 'Q4_0', 32, 18, true], // f16 d, 16 bytes of 4-bit values
      [3, 'Q4_1', 32, 20, false],
      [6, 'Q5_0', 32, 22, true], // f16 d, 4 bytes of fifth bits, 16 bytes of 4-bit values
      [7, 'Q5_1', 32, 24, false],
      [8, 'Q8_0', 32, 34, true], // f16 d, 32 int8
      [9, 'Q8_1', 32, 36, false],
      [10, 'Q2_K', 256, 84, false],
      [11, 'Q3_K', 256, 110, false],
      [12, 'Q4_K', 256, 144, true], // f16 d, f16 dmin, 12 bytes of 6-bit scales and mins, 128 bytes of 4-bit values
      [13, 'Q5_K', 256, 176, true], // as Q4_K, with 32 bytes of fifth bits before the 4-bit values
      [14, 'Q6_K', 256, 210, true], // 128 bytes of low 4 bits, 64 of high 2 bits, 16 int8 scales, f16 d
      [15, 'Q8_K', 256, 292, false],
      [16, 'IQ2_XXS', 256, 66, false],
      [17, 'IQ2_XS', 256, 74, false],
      [18, 'IQ3_XXS', 256, 98, false],
      [19, 'IQ1_S', 256, 50, false],
      [20, 'IQ4_NL', 32, 18, false],
      [21, 'IQ3_S', 256, 110, false],
      [22, 'IQ2_S', 256, 82, false],
      [23, 'IQ4_XS', 256, 136, false],
      [24, 'I8', 1, 1, false],
      [25, 'I16', 1, 2, false],
      [26, 'I32', 1, 4, false],
      [27, 'I64', 1, 8, false],
      [28, 'F64', 1, 8, false],
      [29, 'IQ1_M', 256, 56, false],
      [30, 'BF16', 1, 2, true],
      [34, 'TQ1_0', 256, 54, false],
      [35, 'TQ2_0', 256, 66, false],
    ].map(([id, name, blockElements, blockBytes, read]) => [
      id,
      Object.freeze({ id, name, blockElements, blockBytes, read }),
    ]),
  ),
);

/** The names of the types this loader reads. */
export const READ_TYPES = Object.freeze([...GGML_TYPES.values()].filter((t) => t.read).map((t) => t.name));

/** A type by name (for the loader). */
export const typeNamed = (name) => [...GGML_TYPES.values()].find((t) => t.name === name);
