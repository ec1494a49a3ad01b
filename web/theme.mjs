// Sets the palette's UI colours and the font stacks on :root as CSS custom
// properties: style.css spells no colour or font list of its own. index.html
// loads this module render-blocking, so the first paint already has them.
import { cssVariables } from './lib/palette.mjs';
import { CJK_FONTS, UI_FONTS } from './lib/tokens.mjs';

const root = document.documentElement.style;
for (const [name, value] of [...cssVariables(), ['--cjk', CJK_FONTS], ['--font', UI_FONTS]])
  root.setProperty(name, value);
