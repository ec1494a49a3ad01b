// pytorch_model.bin, the zip form of torch.save (torch ≥ 1.6), read without
// executing anything. The archive holds <folder>/data.pkl, a pickle of the
// state_dict whose tensors refer by persistent id to records <folder>/data/<key>
// (stored, not compressed). Python's unpickler would call any function the
// pickle names; this one is a small pickle machine that knows only what a
// state_dict uses — collections.OrderedDict, torch._utils._rebuild_tensor_v2
// and _rebuild_parameter, the typed storages — and refuses any other global by
// name, with limits on its memo, stack and nesting. Each tensor comes out as
// safetensors.mjs gives one: { name, dtype, shape, elements, begin, end }, its
// bytes' absolute offsets in the file, so the loader streams both formats
// alike. Hand-written because no maintained JS library reads this format
// without a Python runtime.
import { fileError } from '../../errors.mjs';
import { readStoredZip } from './zip.mjs';

/** The storages a state_dict's tensors use → safetensors' dtype names (only F32/F16/BF16 load). */
const STORAGES = Object.freeze({
  FloatStorage: 'F32',
  HalfStorage: 'F16',
  BFloat16Storage: 'BF16',
  DoubleStorage: 'F64',
  LongStorage: 'I64',
  IntStorage: 'I32',
  ShortStorage: 'I16',
  CharStorage: 'I8',
  ByteStorage: 'U8',
  BoolStorage: 'BOOL',
});
const ITEM_BYTES = Object.freeze({ F32: 4, F16: 2, BF16: 2, F64: 8, I64: 8, I32: 4, I16: 2, I8: 1, U8: 1, BOOL: 1 });
/** The only functions a pickle may name, as "module.name". */
const CALLABLES = new Set([
  'collections.OrderedDict',
  'torch._utils._rebuild_tensor_v2',
  'torch._utils._rebuild_parameter',
]);
// Limits of the pickle machine: a state_dict's pickle is small (names, shapes, ids).
const MAX_PICKLE = 64 << 20;
const MAX_MEMO = 1 << 20;
const MAX_STACK = 1 << 20;
const MAX_MARKS = 1000;
const MAX_STRING = 1 << 20;

const MARK = Symbol('mark');

class Global {
  constructor(module, name) {
    this.module = module;
    this.name = name;
  }
  get path() {
    return `${this.module}.${this.name}`;
  }
}
class Storage {
  constructor(dtype, key, numel) {
    Object.assign(this, { dtype, key, numel });
  }
}
class Tensor {
  constructor(storage, offset, shape, stride) {
    Object.assign(this, { storage, offset, shape, stride });
  }
}

/** True when the first bytes are a zip's local file header ("PK\3\4"). */
export const isZip = (bytes) => bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 3 && bytes[3] === 4;

/**
 * The tensors of one pytorch_model.bin: [{ name, dtype, shape, elements,
 * begin, end }] sorted by begin. `file`: { name, size, read(begin, end) }.
 * Throws an Error naming the file and the problem; runs nothing it holds.
 */
export async function readPytorchTensors(file) {
  const fail = (problem) => {
    throw fileError(file.name, `${file.name}: ${problem}`);
  };
  const head = await file.read(0, Math.min(4, file.size));
  if (!isZip(head)) {
    if (head[0] === 0x80)
      fail(
        'this is the legacy torch.save format (torch before 1.6), which mha-wasm does not read: save it again with ' +
          'torch ≥ 1.6, or convert it to safetensors (save_pretrained(folder, safe_serialization=True))',
      );
    fail('not a zip archive: not a pytorch_model.bin written by torch.save (torch ≥ 1.6)');
  }
  const members = await readStoredZip(file, fail);
  const names = [...members.keys()];
  const pkl = names.filter((n) => n.endsWith('/data.pkl') && n.split('/').length === 2);
  if (pkl.length !== 1) fail(`expected one <folder>/data.pkl in the archive, found ${pkl.length}`);
  const folder = pkl[0].slice(0, -'data.pkl'.length);
  for (const n of names) if (!n.startsWith(folder)) fail(`zip member "${n}" is outside the archive's folder ${folder}`);
  const pickle = members.get(pkl[0]);
  if (pickle.size > MAX_PICKLE) fail(`data.pkl is ${pickle.size} bytes, more than a state_dict's (${MAX_PICKLE})`);
  const root = unpickle(await file.read(pickle.begin, pickle.begin + pickle.size), fail);
  if (!(root instanceof Map))
    fail('data.pkl is not a state_dict (a mapping of tensor names to tensors): not a model checkpoint?');
  const tensors = [];
  for (const [name, value] of root) {
    if (typeof name !== 'string') fail(`a state_dict key is not a string (${typeof name})`);
    if (!(value instanceof Tensor)) fail(`"${name}" is not a tensor`);
    const { storage, offset, shape, stride } = value;
    const what = `tensor "${name}"`;
    const record = members.get(`${folder}data/${storage.key}`);
    if (!record) fail(`${what}: its storage data/${storage.key} is not in the archive`);
    const item = ITEM_BYTES[storage.dtype];
    if (record.size !== storage.numel * item)
      fail(
        `${what}: storage data/${storage.key} holds ${record.size} bytes, but ${storage.numel} ${storage.dtype} need ${storage.numel * item}`,
      );
    const elements = shape.reduce((a, b) => a * b, 1);
    if (elements > 0) {
      let expected = 1;
      for (let d = shape.length - 1; d >= 0; d--) {
        if (shape[d] > 1 && stride[d] !== expected)
          fail(`${what}: its strides [${stride}] are not those of a contiguous [${shape}] (save it contiguous)`);
        expected *= shape[d];
      }
      if (offset + elements > storage.numel)
        fail(`${what}: elements [${offset}, ${offset + elements}) go past its storage's ${storage.numel}`);
    }
    const begin = record.begin + offset * item;
    tensors.push({ name, dtype: storage.dtype, shape, elements, begin, end: begin + elements * item });
  }
  return tensors.sort((a, b) => a.begin - b.begin || a.end - b.end);
}

// ---- Pickle: the opcodes a state_dict's pickle uses (protocols 2 and 4) -----

function unpickle(bytes, fail) {
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const stack = [];
  const marks = [];
  const memo = new Map();
  let i = 0;
  const need = (n) => {
    if (i + n > bytes.length) fail('data.pkl ends in the middle of an instruction: the file is truncated');
  };
  const u8 = () => (need(1), bytes[i++]);
  const u16 = () => (need(2), (i += 2), v.getUint16(i - 2, true));
  const u32 = () => (need(4), (i += 4), v.getUint32(i - 4, true));
  const line = () => {
    const end = bytes.indexOf(0x0a, i);
    if (end < 0 || end - i > 256) fail('data.pkl: a GLOBAL name is not a line');
    const text = decoder.decode(bytes.subarray(i, end));
    i = end + 1;
    return text;
  };
  const text = (n) => {
    if (n > MAX_STRING) fail(`data.pkl: a string of ${n} bytes, more than a state_dict holds`);
    need(n);
    let s;
    try {
      s = decoder.decode(bytes.subarray(i, i + n));
    } catch {
      fail('data.pkl: a string is not UTF-8');
    }
    i += n;
    return s;
  };
  const push = (x) => {
    if (stack.length >= MAX_STACK) fail(`data.pkl: more than ${MAX_STACK} values on the stack`);
    stack.push(x);
  };
  const pop = () => {
    if (!stack.length || stack[stack.length - 1] === MARK) fail('data.pkl: an instruction finds no value');
    return stack.pop();
  };
  const popMark = () => {
    if (!marks.length) fail('data.pkl: an instruction finds no mark');
    const at = marks.pop();
    const items = stack.splice(at);
    items.shift();
    return items;
  };
  const put = (key) => {
    if (!stack.length) fail('data.pkl: nothing to memoize');
    if (memo.size >= MAX_MEMO && !memo.has(key)) fail(`data.pkl: more than ${MAX_MEMO} memo entries`);
    memo.set(key, stack[stack.length - 1]);
  };
  const get = (key) => {
    if (!memo.has(key)) fail(`data.pkl: memo entry ${key} was never stored`);
    push(memo.get(key));
  };
  const int = (n) => {
    if (!Number.isSafeInteger(n)) fail('data.pkl: an integer beyond 2^53');
    return n;
  };
  for (;;) {
    const op = u8();
    switch (op) {
      case 0x80: // PROTO
        if (u8() > 4) fail('data.pkl: a pickle protocol above 4');
        break;
      case 0x95: // FRAME
        need(8);
        i += 8;
        break;
      case 0x2e: // STOP
        if (stack.length !== 1) fail('data.pkl: the pickle does not end with one value');
        return stack[0];
      case 0x28: // MARK
        if (marks.length >= MAX_MARKS) fail(`data.pkl: nested more than ${MAX_MARKS} deep`);
        marks.push(stack.length);
        push(MARK);
        break;
      case 0x7d: // EMPTY_DICT
        push(new Map());
        break;
      case 0x5d: // EMPTY_LIST
        push([]);
        break;
      case 0x29: // EMPTY_TUPLE
        push(Object.freeze([]));
        break;
      case 0x74: // TUPLE
        push(Object.freeze(popMark()));
        break;
      case 0x85: // TUPLE1
        push(Object.freeze([pop()]));
        break;
      case 0x86: {
        // TUPLE2
        const b = pop();
        push(Object.freeze([pop(), b]));
        break;
      }
      case 0x87: {
        // TUPLE3
        const c = pop();
        const b = pop();
        push(Object.freeze([pop(), b, c]));
        break;
      }
      case 0x71: // BINPUT
        put(u8());
        break;
      case 0x72: // LONG_BINPUT
        put(u32());
        break;
      case 0x94: // MEMOIZE
        put(memo.size);
        break;
      case 0x68: // BINGET
        get(u8());
        break;
      case 0x6a: // LONG_BINGET
        get(u32());
        break;
      case 0x58: // BINUNICODE
        push(text(u32()));
        break;
      case 0x8c: // SHORT_BINUNICODE
        push(text(u8()));
        break;
      case 0x4b: // BININT1
        push(u8());
        break;
      case 0x4d: // BININT2
        push(u16());
        break;
      case 0x4a: // BININT
        need(4);
        push(v.getInt32(i, true));
        i += 4;
        break;
      case 0x8a: {
        // LONG1
        const n = u8();
        if (n > 7) fail('data.pkl: an integer beyond 2^53');
        need(n);
        let x = 0;
        for (let k = n - 1; k >= 0; k--) x = x * 256 + bytes[i + k];
        if (n && bytes[i + n - 1] & 0x80) x -= 2 ** (8 * n);
        i += n;
        push(int(x));
        break;
      }
      case 0x47: // BINFLOAT
        need(8);
        push(v.getFloat64(i, false));
        i += 8;
        break;
      case 0x4e: // NONE
        push(null);
        break;
      case 0x88: // NEWTRUE
        push(true);
        break;
      case 0x89: // NEWFALSE
        push(false);
        break;
      case 0x63: {
        // GLOBAL: only what a state_dict names; anything else is refused by name, never looked up.
        const module = line();
        const name = line();
        const path = `${module}.${name}`;
        if (module === 'torch' && Object.hasOwn(STORAGES, name)) push(new Global(module, name));
        else if (CALLABLES.has(path)) push(new Global(module, name));
        else
          fail(
            `data.pkl names ${path}, which a state_dict does not use: refused (a pickle can run any function it names; this one is not run)`,
          );
        break;
      }
      case 0x51: {
        // BINPERSID: ('storage', <torch.XStorage>, key, location, numel)
        const pid = pop();
        if (!Array.isArray(pid) || pid.length !== 5 || pid[0] !== 'storage' || !(pid[1] instanceof Global))
          fail('data.pkl: a persistent id that is not a storage');
        const [, type, key, , numel] = pid;
        if (type.module !== 'torch' || !Object.hasOwn(STORAGES, type.name))
          fail(`data.pkl: a storage of type ${type.path}, which is not a tensor storage`);
        if (typeof key !== 'string' || !/^\w+$/.test(key)) fail('data.pkl: a storage key that is not a name');
        if (!Number.isSafeInteger(numel) || numel < 0) fail('data.pkl: a storage size that is not a count');
        push(new Storage(STORAGES[type.name], key, numel));
        break;
      }
      case 0x52: {
        // REDUCE
        const args = pop();
        const callable = pop();
        if (!(callable instanceof Global) || !CALLABLES.has(callable.path) || !Array.isArray(args))
          fail('data.pkl: a call of something that is not an allowed function');
        push(call(callable.path, args, fail));
        break;
      }
      case 0x73: {
        // SETITEM
        const value = pop();
        const key = pop();
        const dict = pop();
        if (!(dict instanceof Map)) fail('data.pkl: SETITEM on something that is not a dict');
        dict.set(key, value);
        push(dict);
        break;
      }
      case 0x75: {
        // SETITEMS
        const items = popMark();
        const dict = pop();
        if (!(dict instanceof Map) || items.length % 2) fail('data.pkl: SETITEMS on something that is not a dict');
        for (let k = 0; k < items.length; k += 2) dict.set(items[k], items[k + 1]);
        push(dict);
        break;
      }
      case 0x61: {
        // APPEND
        const value = pop();
        const list = pop();
        if (!Array.isArray(list) || Object.isFrozen(list)) fail('data.pkl: APPEND to something that is not a list');
        list.push(value);
        push(list);
        break;
      }
      case 0x65: {
        // APPENDS
        const items = popMark();
        const list = pop();
        if (!Array.isArray(list) || Object.isFrozen(list)) fail('data.pkl: APPENDS to something that is not a list');
        list.push(...items);
        push(list);
        break;
      }
      case 0x62: {
        // BUILD: an OrderedDict's state (its _metadata); kept no further.
        pop();
        const target = pop();
        if (!(target instanceof Map)) fail('data.pkl: BUILD of something that is not a state_dict');
        push(target);
        break;
      }
      default:
        fail(`data.pkl: pickle instruction 0x${op.toString(16).padStart(2, '0')} is not one a state_dict uses`);
    }
  }
}

const isSizes = (a) => Array.isArray(a) && a.every((n) => Number.isSafeInteger(n) && n >= 0);

function call(path, args, fail) {
  switch (path) {
    case 'collections.OrderedDict':
      if (args.length) fail('data.pkl: OrderedDict called with arguments');
      return new Map();
    case 'torch._utils._rebuild_tensor_v2': {
      const [storage, offset, shape, stride] = args;
      if (!(storage instanceof Storage) || !Number.isSafeInteger(offset) || offset < 0 || !isSizes(shape))
        fail('data.pkl: a tensor without a storage, an offset and a shape');
      if (!isSizes(stride) || stride.length !== shape.length)
        fail('data.pkl: a tensor whose strides do not fit its shape');
      return new Tensor(storage, offset, [...shape], [...stride]);
    }
    case 'torch._utils._rebuild_parameter':
      if (!(args[0] instanceof Tensor)) fail('data.pkl: a parameter without a tensor');
      return args[0];
    default:
      return fail(`data.pkl: ${path} refused`);
  }
}
