// Before the first paint (index.html loads this module render-blocking): the
// palette's UI colours and the font stacks as CSS custom properties on :root
// (style.css spells no colour or font list of its own), and the language:
// the link's, else the browser's first one the page has; every text of the
// markup is written in it.
import { cssVariables } from './lib/palette.mjs';
import { CJK_FONTS, UI_FONTS } from './lib/tokens.mjs';
import { preferredLanguage, setLanguage, translateDom } from './lib/i18n.mjs';
import { parseState } from './state.mjs';
import { pageParams } from './page-params.mjs';

const root = document.documentElement.style;
for (const [name, value] of [...cssVariables(), ['--cjk', CJK_FONTS], ['--font', UI_FONTS]])
  root.setProperty(name, value);

setLanguage(parseState(location.search).lang || preferredLanguage(navigator.languages));
translateDom(document, pageParams());
