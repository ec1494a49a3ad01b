// A model's heads by attention group, and head masks in the form its calls
// take: an encoder's or a decoder's run() takes [layers][heads]; an
// encoder-decoder's { encoder, decoder, cross }. Inside the analyses a mask is
// one Uint8Array [layers × heads] per group (1 keep, 0 switched off).

/** The attention groups of a model and each one's [layers, heads], in the order results list them. */
export function headGroups(config) {
  if (config.kind === 'encoder-decoder')
    return [
      { group: 'encoder', layers: config.numLayers, heads: config.numHeads },
      { group: 'decoder', layers: config.decoderLayers, heads: config.decoderHeads },
      { group: 'cross', layers: config.decoderLayers, heads: config.decoderHeads },
    ];
  return [{ group: config.kind, layers: config.numLayers, heads: config.numHeads }];
}

/** Every head kept: { group: Uint8Array of 1 }. */
export function allKept(groups) {
  return Object.fromEntries(groups.map((g) => [g.group, new Uint8Array(g.layers * g.heads).fill(1)]));
}

/** Every head of the model as { group, layer, head, index } (index: in the group's [layers × heads]), groups in order. */
export function everyHead(groups) {
  const out = [];
  for (const { group, layers, heads } of groups)
    for (let layer = 0; layer < layers; layer++)
      for (let head = 0; head < heads; head++) out.push({ group, layer, head, index: layer * heads + head });
  return out;
}

/** `kept` with the given heads switched off (a copy). */
export function switchedOff(kept, heads) {
  const out = Object.fromEntries(Object.entries(kept).map(([group, m]) => [group, m.slice()]));
  for (const { group, index } of heads) out[group][index] = 0;
  return out;
}

/** The analyses' masks as the model's calls take them (null when every head is kept). */
export function callMask(config, groups, masks) {
  const rows = ({ group, layers, heads }) =>
    Array.from({ length: layers }, (_, l) => masks[group].subarray(l * heads, (l + 1) * heads));
  const full = (g) => masks[g.group].every((v) => v === 1);
  if (groups.every(full)) return undefined;
  if (config.kind !== 'encoder-decoder') return rows(groups[0]);
  return Object.fromEntries(groups.filter((g) => !full(g)).map((g) => [g.group, rows(g)]));
}

/** A mask as plain arrays, as the results give it: { group: [layers][heads] of 0/1 }. */
export function plainMask(groups, masks) {
  return Object.fromEntries(
    groups.map(({ group, layers, heads }) => [
      group,
      Array.from({ length: layers }, (_, l) => Array.from(masks[group].subarray(l * heads, (l + 1) * heads))),
    ]),
  );
}
