// The hatch that marks masked cells (causal: the key is in the future), the
// same in every view: a pattern of diagonal lines on a pale ground.
import { UI } from './palette.mjs';

/**
 * Appends the pattern to a d3 selection of <defs>; fill a shape with `url(#id)`.
 * @param {{ size: number, strokeWidth: number }} options the distance between the lines and their width, in px
 */
export function appendHatch(defs, id, { size, strokeWidth }) {
  const pattern = defs
    .append('pattern')
    .attr('id', id)
    .attr('patternUnits', 'userSpaceOnUse')
    .attr('width', size)
    .attr('height', size)
    .attr('patternTransform', 'rotate(45)');
  pattern.append('rect').attr('width', size).attr('height', size).attr('fill', UI.hatchGround);
  pattern.append('line').attr('y2', size).attr('stroke', UI.hatchLine).attr('stroke-width', strokeWidth);
  return pattern;
}
