#include "weights.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <utility>

#include "../core/common.hpp"
#include "../core/pack.hpp"
#include "../core/quant.hpp"
#include "ggml_blocks.hpp"

namespace mha::model {
namespace {

// A value a 16-bit storage would make infinite: refused by name.
[[noreturn]] MHA_COLD void beyond_range(const std::string& tensor, std::size_t element, float value, DType s) {
  const bool f16 = s == DType::F16;
  ((Message() << tensor.c_str() << ": element " << element << " (").real(value)
   << ") is beyond the range of " << (f16 ? "float16 (±65504)" : "bfloat16") << "; hold the weights in "
   << (f16 ? "bf16 or " : "") << "float32")
      .raise();
}

// Elements [e0, e0 + count) of a slot held in blocks (whole blocks of its type, nn.Linear's layout [N, K]:
// element e is B's (e % K, e / K)), decoded and put where quant.hpp's layout has them.
void write_blocks(Slot& slot, quant::Format f, std::size_t e0, std::size_t count, const unsigned char* data) {
  const std::size_t E = block_elements(slot.storage), bytes = block_bytes(slot.storage), R = quant::rows_of(f);
  const std::size_t panelBytes = quant::panel_bytes(f, slot.K);
  Decoded d;
  for (std::size_t done = 0; done < count; done += E, data += bytes) {
    decode(slot.storage, data, d);
    const std::size_t e = e0 + done, j = e / slot.K, k0 = e % slot.K, c = j % kPanel;
    unsigned char* panel = slot.blocks.data() + j / kPanel * panelBytes;
    for (std::size_t i = 0; i < E; i += R) {
      // Sub-block i / d.sub is block (k0 + i) / R of the panel (a sub-block of ggml's is R rows: quant.hpp).
      unsigned char* block = panel + (k0 + i) / R * quant::block_size(f);
      std::memcpy(block + c * sizeof(float), &d.scale[i / d.sub], sizeof(float));
      if (quant::has_min(f)) std::memcpy(block + (kPanel + c) * sizeof(float), &d.min[i / d.sub], sizeof(float));
      for (std::size_t r = 0; r < R; ++r) {
        unsigned char& at = block[quant::value_byte(f, r, c)];
        const unsigned char q = static_cast<unsigned char>(d.q[i + r] - quant::offset(f));
        if (!quant::nibbles(f)) {
          at = q;
        } else {
          const unsigned shift = quant::value_shift(f, c);
          at = static_cast<unsigned char>((at & ~(0xfu << shift)) | (q & 0xfu) << shift);
        }
      }
    }
  }
}

}  // namespace

void to_float(DType dtype, const unsigned char* data, std::size_t count, float* out) noexcept {
  switch (dtype) {
    case DType::F32:
      std::memcpy(out, data, count * sizeof(float));  // little-endian, like wasm and x86
      break;
    case DType::F16:
      for (std::size_t i = 0; i < count; ++i) out[i] = f16_to_float(std::uint16_t(data[2 * i] | data[2 * i + 1] << 8));
      break;
    case DType::BF16:
      for (std::size_t i = 0; i < count; ++i) out[i] = bf16_to_float(std::uint16_t(data[2 * i] | data[2 * i + 1] << 8));
      break;
    default: dequantize(dtype, data, count, out); break;
  }
}

double Slot::bytes() const noexcept {
  quant::Format f;
  if (packed && quant::held_format(storage, f)) return double(panels(N)) * double(quant::panel_bytes(f, K));
  return double(size) * (storage == DType::F32 ? 4.0 : 2.0);
}

void Slot::column(std::size_t j, float* out) const noexcept {
  const std::size_t start = j / kPanel * kPanel * K;
  quant::Format f;
  if (storage == DType::F32) {
    const float* p = data.data() + start + j % kPanel;
    for (std::size_t k = 0; k < K; ++k) out[k] = p[k * kPanel];
  } else if (quant::held_format(storage, f)) {
    const unsigned char* panel = blocks.data() + j / kPanel * quant::panel_bytes(f, K);
    const std::size_t c = j % kPanel, R = quant::rows_of(f);
    for (std::size_t k0 = 0; k0 < K; k0 += R) {
      const unsigned char* block = panel + k0 / R * quant::block_size(f);
      float scale, min = 0.0f;
      std::memcpy(&scale, block + c * sizeof(float), sizeof(float));
      if (quant::has_min(f)) std::memcpy(&min, block + (kPanel + c) * sizeof(float), sizeof(float));
      for (std::size_t r = 0; r < R; ++r)
        out[k0 + r] = quant::has_min(f) ? scale * float(quant::value(f, block, r, c)) - min
                                        : scale * float(quant::value(f, block, r, c));
    }
  } else {
    const std::uint16_t* p = halves.data() + start + half_lane(j % kPanel);
    for (std::size_t k = 0; k < K; ++k) out[k] = widen(storage, p[k * kPanel]);
  }
}

Slot& Weights::plain(std::size_t n) {
  Slot& s = slots_.emplace_back();
  s.size = n;
  s.missing = n;
  return s;
}

Slot& Weights::packed(bool packNK, std::size_t K, std::size_t N) {
  Slot& s = slots_.emplace_back();
  s.storage = matrices_;
  s.packed = true;
  s.packNK = packNK;
  s.K = K;
  s.N = N;
  s.size = checked_product({panels(N) * kPanel, K}, "a packed weight matrix");
  s.missing = K * N;
  return s;
}

const Slot* Weights::tensor(std::string name, std::vector<std::size_t> shape, Slot& slot, std::size_t offset) {
  Tensor t{std::move(name), std::move(shape), 1};
  for (std::size_t n : t.shape) t.elements *= n;
  // The slot's index: it is nearly always the last one laid out.
  for (std::size_t i = slots_.size(); i-- > 0;)
    if (&slots_[i] == &slot) {
      t.slot = i;
      break;
    }
  t.matrix = slot.packed;
  t.group = open_;
  t.optional = open_ != 0;
  tensors_.push_back(std::move(t));
  places_.push_back({&slot, offset, 0});
  return &slot;
}

void Weights::output_head(const Slot* slot) noexcept {
  for (std::size_t i = 0; i < tensors_.size(); ++i)
    if (places_[i].slot == slot) tensors_[i].outputHead = true;
}

void Weights::optional() {
  if (tensors_.empty() || places_.back().slot->packed) throw ArgumentError("optional: a plain tensor comes first");
  tensors_.back().optional = true;
}

void Weights::begin_group() { open_ = ++groups_; }

std::size_t Weights::end_group() {
  const std::size_t group = open_;
  open_ = 0;
  return group;
}

bool Weights::complete(std::size_t group) const noexcept {
  for (std::size_t i = 0; i < tensors_.size(); ++i)
    if (tensors_[i].group == group && places_[i].written != tensors_[i].elements) return false;
  return true;
}

bool Weights::hold(std::size_t index, DType type) {
  if (allocated_) throw ArgumentError("hold: the model's memory is allocated already");
  if (index >= tensors_.size()) return false;
  const Slot& slot = *places_[index].slot;
  quant::Format f;
  if (!quant::held_format(type, f) || !slot.packed || !slot.packNK || slot.K % block_elements(type) != 0 ||
      slot.K % quant::rows_of(f) != 0)
    return false;
  requested_.resize(tensors_.size(), DType::F32);
  requested_[index] = type;
  return true;
}

void Weights::settle() {
  if (allocated_ || requested_.empty()) return;
  // A slot is held in a block type when each of its tensors asked for that type.
  std::vector<int> agreed(slots_.size(), -1);  // -1: none asked yet; -2: not all the same
  for (std::size_t i = 0; i < tensors_.size(); ++i) {
    const std::size_t s = tensors_[i].slot;
    if (!slots_[s].packed) continue;
    const int want = i < requested_.size() && requested_[i] != DType::F32 ? int(requested_[i]) : -2;
    agreed[s] = agreed[s] == -1 || agreed[s] == want ? want : -2;
  }
  for (std::size_t s = 0; s < slots_.size(); ++s)
    if (agreed[s] >= 0) slots_[s].storage = DType(agreed[s]);
}

void Weights::allocate() {
  settle();
  // A packed slot's memory is left as it comes: a checkpoint writes every
  // element of it before the model can run (missing()), and zeroing hundreds
  // of megabytes here would fault every page in on this one thread (touch()
  // does it on the pool's threads side by side). Zeros where no write may
  // come: the plain slots (an optional tensor left out holds zeros; they are
  // small) and the last panel of a packed slot, whose columns past N must be
  // +0 (in every storage).
  for (Slot& s : slots_) {
    const std::size_t from = s.packed && s.N ? (panels(s.N) - 1) * kPanel * s.K : 0;
    quant::Format f;
    if (s.packed && quant::held_format(s.storage, f)) {
      const std::size_t bytes = panels(s.N) * quant::panel_bytes(f, s.K), last = quant::panel_bytes(f, s.K);
      s.blocks.resize(bytes);
      std::fill(s.blocks.data() + bytes - last, s.blocks.data() + bytes, static_cast<unsigned char>(0));
    } else if (s.storage == DType::F32) {
      s.data.resize(s.size);
      std::fill(s.data.data() + from, s.data.data() + s.size, 0.0f);
    } else {
      s.halves.resize(s.size);
      std::fill(s.halves.data() + from, s.halves.data() + s.size, std::uint16_t(0));
    }
  }
  allocated_ = true;
}

void Weights::round_activations(bool on) noexcept {
  for (Slot& s : slots_) s.roundsActivations = on && s.packed && rounds_activations(s.storage);
}

void Weights::touch(ThreadPool& pool) {
  if (pool.size() < 2) return;  // one thread faults the pages in as the load writes them, at the same cost
  // The packed slots (the plain ones are small, and zeroed already), in tasks of 4 MB.
  constexpr std::size_t kPage = 4096, kTask = std::size_t(1) << 22;
  std::vector<std::pair<unsigned char*, std::size_t>> tasks;
  for (Slot& s : slots_) {
    if (!s.packed) continue;
    for (auto [data, bytes] : {std::pair{s.blocks.data(), s.blocks.size()},
                               std::pair{reinterpret_cast<unsigned char*>(s.data.data()), s.data.size() * 4},
                               std::pair{reinterpret_cast<unsigned char*>(s.halves.data()), s.halves.size() * 2}})
      for (std::size_t at = 0; at < bytes; at += kTask) tasks.emplace_back(data + at, std::min(kTask, bytes - at));
  }
  pool.run(tasks.size(), [&](std::size_t i, std::size_t) {
    for (std::size_t at = 0; at < tasks[i].second; at += kPage) tasks[i].first[at] = 0;
  });
}

double Weights::bytes_to_allocate() const noexcept {
  double n = 0;
  for (const Slot& s : slots_) n += s.bytes();
  return n;
}

void Weights::write(std::size_t index, DType dtype, std::size_t first, std::size_t count, const unsigned char* data) {
  if (index >= tensors_.size())
    (Message() << "index: expected a tensor index below " << tensors_.size() << ", got " << index).raise();
  if (!allocated_) throw ArgumentError("model: laid out only, with no memory for its parameters");
  const Tensor& t = tensors_[index];
  Place& place = places_[index];
  if (first != place.written || count > t.elements - first)
    (Message() << t.name.c_str() << ": chunk [" << first << ", " << first + count << ") does not continue the "
               << place.written << " of " << t.elements << " elements written")
        .raise();
  Slot& slot = *place.slot;
  const std::size_t E = block_elements(dtype);
  if (first % E != 0 || count % E != 0)
    (Message() << t.name.c_str() << ": chunk [" << first << ", " << first + count << ") is not whole "
               << dtype_name(dtype) << " blocks of " << E << " elements")
        .raise();
  quant::Format f;
  if (slot.packed && quant::held_format(slot.storage, f)) {
    if (dtype == slot.storage) {
      write_blocks(slot, f, place.offset + first, count, data);
    } else if (is_float(dtype) && quantizable(slot.storage)) {
      // Floats quantized as they come, in whole blocks of 32 (a row of K holds whole blocks, and the loader's
      // chunks are whole rows or 2^20 and more elements).
      if (first % 32 != 0 || count % 32 != 0)
        (Message() << t.name.c_str() << ": chunk [" << first << ", " << first + count << ") cuts a block of 32")
            .raise();
      constexpr std::size_t kFloats = 1024;
      float floats[kFloats];
      unsigned char blocks[kFloats / 32 * 34];
      for (std::size_t done = 0; done < count;) {
        const std::size_t n = std::min(kFloats, count - done);
        to_float(dtype, data + done * block_bytes(dtype), n, floats);
        for (std::size_t i = 0; i < n; ++i)
          if (!std::isfinite(floats[i]))
            ((Message() << t.name.c_str() << ": element " << first + done + i << " (").real(floats[i])
             << ") is not finite and has no " << dtype_name(slot.storage) << " block; hold the weights in float32")
                .raise();
        quantize(slot.storage, floats, n, blocks);
        write_blocks(slot, f, place.offset + first + done, n, blocks);
        done += n;
      }
    } else {
      (Message() << t.name.c_str() << ": held in " << dtype_name(slot.storage) << " blocks, written as "
                 << dtype_name(dtype))
          .raise();
    }
    place.written += count;
    slot.missing -= count;
    return;
  }
  // In blocks, to floats, then each element to its place: elements of the
  // slot's file layout, row after row (rows of K for packNK, of N otherwise).
  // The storage is chosen once per block, not per element: this loop packs
  // every weight of a checkpoint.
  constexpr std::size_t kBlock = 1024;
  float block[kBlock];
  const std::size_t rowLength = slot.packNK ? slot.K : slot.N, panelFloats = kPanel * slot.K;
  const bool halves = slot.storage != DType::F32;
  // put(at, i) for each element i of a block whose first is element e0 of the
  // slot: `at` is its place in the panels, its column's lane included.
  const auto scatter = [&](std::size_t e0, std::size_t n, auto put) {
    for (std::size_t i = 0; i < n;) {
      const std::size_t e = e0 + i, row = e / rowLength, column = e % rowLength;
      const std::size_t run = std::min(n - i, rowLength - column);
      const auto lane = [&](std::size_t j) { return halves ? half_lane(j % kPanel) : j % kPanel; };
      if (slot.packNK) {
        // A row of the file is column j = row of B: K elements kPanel apart in one panel.
        const std::size_t at = row / kPanel * panelFloats + column * kPanel + lane(row);
        for (std::size_t r = 0; r < run; ++r) put(at + r * kPanel, i + r);
      } else {
        // A row of the file is row k of B: kPanel contiguous columns per panel.
        for (std::size_t r = 0; r < run; ++r) {
          const std::size_t j = column + r;
          put(j / kPanel * panelFloats + row * kPanel + lane(j), i + r);
        }
      }
      i += run;
    }
  };
  for (std::size_t done = 0; done < count;) {
    const std::size_t n = std::min(kBlock, count - done);
    to_float(dtype, data + done / E * block_bytes(dtype), n, block);
    const std::size_t e0 = place.offset + first + done;
    if (!slot.packed) {
      std::copy_n(block, n, slot.data.data() + e0);
    } else if (!halves) {
      float* const to = slot.data.data();
      scatter(e0, n, [&](std::size_t at, std::size_t i) { to[at] = block[i]; });
    } else {
      std::uint16_t* const to = slot.halves.data();
      scatter(e0, n, [&](std::size_t at, std::size_t i) {
        const std::uint16_t h = narrow(slot.storage, block[i]);
        if (std::isinf(widen(slot.storage, h)) && !std::isinf(block[i]))
          beyond_range(t.name, first + done + i, block[i], slot.storage);
        to[at] = h;
      });
    }
    done += n;
  }
  place.written += count;
  slot.missing -= count;
}

std::vector<std::string> Weights::missing() const {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < tensors_.size(); ++i)
    if (places_[i].written != tensors_[i].elements && !(tensors_[i].optional && places_[i].written == 0))
      names.push_back(tensors_[i].name);
  return names;
}

std::size_t Weights::bytes() const noexcept {
  std::size_t n = 0;
  for (const Slot& s : slots_)
    n += s.data.capacity() * sizeof(float) + s.halves.capacity() * sizeof(std::uint16_t) + s.blocks.capacity();
  return n;
}

}  // namespace mha::model
