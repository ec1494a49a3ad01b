// An app that uses the package through esbuild. esbuild does not copy the
// files the package references with new URL('…', import.meta.url), and its
// iife format has no import.meta at all: build.mjs copies those files into
// mha-wasm/ beside the bundle, and locateFile says where they are (a URL
// relative to the page). The same code works with --format=esm and iife.
import { createAttention } from 'mha-wasm';
import { runExample } from '../shared/app.mjs';

runExample(createAttention, { locateFile: (fileName) => `mha-wasm/${fileName}` });
