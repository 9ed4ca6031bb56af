;; Search's postings decoding, in WebAssembly (src/index/postings-decoder.ts loads it).
;;
;; A CLI search runs once, so its loops never get the time to be optimized: decoding the
;; 35,000 postings of a broad query took 14-19 ms in a fresh process and under 1 ms once
;; warm. WebAssembly is compiled before it runs, so a fresh process decodes them at close
;; to the warm speed. After editing this file run `npm run build:wasm`, which writes the
;; compiled module into postings-wasm.ts; test/index/postings-decoder.test.ts fails while
;; the two differ.
;;
;; The walk that ranks a query's sections (search.ts) is here too, for the same reason.
;;
;; Lists are laid out as three arrays, each at its own offset in memory: rowids (f64),
;; weights (u32) and lengths (u32), entry k at offset + 8k and offset + 4k.
(module
  (memory (export "memory") 1)

  ;; Decodes one row's blob, [src, end), of varint triples (the rowid's distance from the
  ;; previous one, starting from `rowid`; the weight; the length), appending to the list
  ;; from entry `k`. Returns the new count. Bytes past `end` must read as zero, so a
  ;; damaged blob ends its last varint there instead of reading on.
  (func (export "decode")
    (param $src i32) (param $end i32) (param $rowid f64)
    (param $rowids i32) (param $weights i32) (param $lengths i32) (param $k i32)
    (result i32)
    (local $value i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $src) (local.get $end)))
        (local.set $value (call $varint (local.get $src)))
        (local.set $src (global.get $after))
        (local.set $rowid (f64.add (local.get $rowid) (f64.convert_i32_u (local.get $value))))
        (f64.store (i32.add (local.get $rowids) (i32.shl (local.get $k) (i32.const 3))) (local.get $rowid))
        (i32.store (i32.add (local.get $weights) (i32.shl (local.get $k) (i32.const 2))) (call $varint (local.get $src)))
        (local.set $src (global.get $after))
        (i32.store (i32.add (local.get $lengths) (i32.shl (local.get $k) (i32.const 2))) (call $varint (local.get $src)))
        (local.set $src (global.get $after))
        (local.set $k (i32.add (local.get $k) (i32.const 1)))
        (br $next)))
    (local.get $k))

  ;; Where the last varint read ended.
  (global $after (mut i32) (i32.const 0))

  ;; The varint at `at`: seven bits a byte, low bits first, a set top bit meaning more
  ;; follow. Values wrap at 32 bits, as the Uint32Array they went into did.
  (func $varint (param $at i32) (result i32)
    (local $byte i32) (local $value i32) (local $shift i32)
    (loop $more
      (local.set $byte (i32.load8_u (local.get $at)))
      (local.set $at (i32.add (local.get $at) (i32.const 1)))
      ;; Bits past the 32nd are dropped (wasm would shift by the count modulo 32).
      (if (i32.lt_u (local.get $shift) (i32.const 32))
        (then
          (local.set $value
            (i32.or (local.get $value) (i32.shl (i32.and (local.get $byte) (i32.const 0x7f)) (local.get $shift))))))
      (local.set $shift (i32.add (local.get $shift) (i32.const 7)))
      (br_if $more (i32.ge_u (local.get $byte) (i32.const 0x80))))
    (global.set $after (local.get $at))
    (local.get $value))

  ;; Two lists (a, b) as one in rowid order into `out`: where both hold a rowid, the
  ;; weights are added and a's length kept. Returns the count.
  (func (export "sum")
    (param $ar i32) (param $aw i32) (param $al i32) (param $an i32)
    (param $br i32) (param $bw i32) (param $bl i32) (param $bn i32)
    (param $or i32) (param $ow i32) (param $ol i32)
    (result i32)
    (local $i i32) (local $j i32) (local $k i32) (local $x f64) (local $y f64) (local $weight i32)
    (block $done
      (loop $next
        (br_if $done (i32.and (i32.ge_u (local.get $i) (local.get $an)) (i32.ge_u (local.get $j) (local.get $bn))))
        (local.set $x
          (if (result f64) (i32.lt_u (local.get $i) (local.get $an))
            (then (f64.load (i32.add (local.get $ar) (i32.shl (local.get $i) (i32.const 3)))))
            (else (f64.const inf))))
        (local.set $y
          (if (result f64) (i32.lt_u (local.get $j) (local.get $bn))
            (then (f64.load (i32.add (local.get $br) (i32.shl (local.get $j) (i32.const 3)))))
            (else (f64.const inf))))
        (if (f64.le (local.get $x) (local.get $y))
          (then
            (f64.store (i32.add (local.get $or) (i32.shl (local.get $k) (i32.const 3))) (local.get $x))
            (i32.store (i32.add (local.get $ol) (i32.shl (local.get $k) (i32.const 2)))
              (i32.load (i32.add (local.get $al) (i32.shl (local.get $i) (i32.const 2)))))
            (local.set $weight (i32.load (i32.add (local.get $aw) (i32.shl (local.get $i) (i32.const 2)))))
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (if (f64.eq (local.get $x) (local.get $y))
              (then
                (local.set $weight
                  (i32.add (local.get $weight) (i32.load (i32.add (local.get $bw) (i32.shl (local.get $j) (i32.const 2))))))
                (local.set $j (i32.add (local.get $j) (i32.const 1)))))
            (i32.store (i32.add (local.get $ow) (i32.shl (local.get $k) (i32.const 2))) (local.get $weight)))
          (else
            (f64.store (i32.add (local.get $or) (i32.shl (local.get $k) (i32.const 3))) (local.get $y))
            (i32.store (i32.add (local.get $ol) (i32.shl (local.get $k) (i32.const 2)))
              (i32.load (i32.add (local.get $bl) (i32.shl (local.get $j) (i32.const 2)))))
            (i32.store (i32.add (local.get $ow) (i32.shl (local.get $k) (i32.const 2)))
              (i32.load (i32.add (local.get $bw) (i32.shl (local.get $j) (i32.const 2)))))
            (local.set $j (i32.add (local.get $j) (i32.const 1)))))
        (local.set $k (i32.add (local.get $k) (i32.const 1)))
        (br $next)))
    (local.get $k))

  ;; Scores every section holding at least one of the query's words and keeps each page's
  ;; best, in page order: the words' lists walked together in rowid order, exactly as
  ;; search.ts describes (FTS5's BM25, the words added in query order, lower is better,
  ;; ties keeping the earlier section; a section's page is its rowid over `slots`).
  ;; `words` is the number of lists; at `table`, 8 numbers a word (f64): the offsets of
  ;; its rowids, weights and lengths, its count and its idf, then two the walk keeps (where
  ;; it stands, its next rowid) and one unused. The pages (i32), scores and sections (f64)
  ;; go to the three arrays given. Returns the number of pages.
  (func (export "walk")
    (param $table i32) (param $words i32) (param $k1 f64) (param $b f64) (param $average f64) (param $slots f64)
    (param $pages i32) (param $scores i32) (param $sections i32)
    (result i32)
    (local $i i32) (local $entry i32) (local $n i32) (local $rowid f64) (local $head f64)
    (local $score f64) (local $norm f64) (local $at i32) (local $f f64) (local $page i32)
    (local $k1p1 f64) (local $last i32)
    (local.set $k1p1 (f64.add (local.get $k1) (f64.const 1)))
    (local.set $last (i32.const -1))
    ;; Each word starts at its first entry, its next rowid that entry's (inf for an empty list).
    (local.set $i (i32.const 0))
    (block $set
      (loop $each
        (br_if $set (i32.ge_u (local.get $i) (local.get $words)))
        (local.set $entry (i32.add (local.get $table) (i32.shl (local.get $i) (i32.const 6))))
        (f64.store offset=40 (local.get $entry) (f64.const 0))
        (f64.store offset=48 (local.get $entry)
          (if (result f64) (f64.gt (f64.load offset=24 (local.get $entry)) (f64.const 0))
            (then (f64.load (i32.trunc_f64_u (f64.load (local.get $entry)))))
            (else (f64.const inf))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $each)))
    (block $done
      (loop $next
        (local.set $rowid (f64.const inf))
        (local.set $i (i32.const 0))
        (block $found
          (loop $min
            (br_if $found (i32.ge_u (local.get $i) (local.get $words)))
            (local.set $head (f64.load offset=48 (i32.add (local.get $table) (i32.shl (local.get $i) (i32.const 6)))))
            (if (f64.lt (local.get $head) (local.get $rowid)) (then (local.set $rowid (local.get $head))))
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (br $min)))
        (br_if $done (f64.eq (local.get $rowid) (f64.const inf)))
        (local.set $score (f64.const 0))
        (local.set $norm (f64.const 0))
        (local.set $i (i32.const 0))
        (block $scored
          (loop $word
            (br_if $scored (i32.ge_u (local.get $i) (local.get $words)))
            (local.set $entry (i32.add (local.get $table) (i32.shl (local.get $i) (i32.const 6))))
            (if (f64.eq (f64.load offset=48 (local.get $entry)) (local.get $rowid))
              (then
                (local.set $at (i32.trunc_f64_u (f64.load offset=40 (local.get $entry))))
                (if (f64.eq (local.get $norm) (f64.const 0))
                  (then
                    (local.set $norm
                      (f64.mul (local.get $k1)
                        (f64.add (f64.sub (f64.const 1) (local.get $b))
                          (f64.div
                            (f64.mul (local.get $b)
                              (f64.convert_i32_u (i32.load (i32.add (i32.trunc_f64_u (f64.load offset=16 (local.get $entry))) (i32.shl (local.get $at) (i32.const 2))))))
                            (local.get $average)))))))
                (local.set $f
                  (f64.convert_i32_u (i32.load (i32.add (i32.trunc_f64_u (f64.load offset=8 (local.get $entry))) (i32.shl (local.get $at) (i32.const 2))))))
                (local.set $score
                  (f64.add (local.get $score)
                    (f64.mul (f64.load offset=32 (local.get $entry))
                      (f64.div (f64.mul (local.get $f) (local.get $k1p1)) (f64.add (local.get $f) (local.get $norm))))))
                (local.set $at (i32.add (local.get $at) (i32.const 1)))
                (f64.store offset=40 (local.get $entry) (f64.convert_i32_u (local.get $at)))
                (f64.store offset=48 (local.get $entry)
                  (if (result f64) (f64.lt (f64.convert_i32_u (local.get $at)) (f64.load offset=24 (local.get $entry)))
                    (then (f64.load (i32.add (i32.trunc_f64_u (f64.load (local.get $entry))) (i32.shl (local.get $at) (i32.const 3)))))
                    (else (f64.const inf))))))
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (br $word)))
        (local.set $score (f64.mul (f64.const -1) (local.get $score)))
        (local.set $page (i32.trunc_f64_u (f64.floor (f64.div (local.get $rowid) (local.get $slots)))))
        (if (i32.and (i32.ge_s (local.get $last) (i32.const 0))
                     (i32.eq (i32.load (i32.add (local.get $pages) (i32.shl (local.get $last) (i32.const 2)))) (local.get $page)))
          (then
            (if (f64.lt (local.get $score) (f64.load (i32.add (local.get $scores) (i32.shl (local.get $last) (i32.const 3)))))
              (then
                (f64.store (i32.add (local.get $scores) (i32.shl (local.get $last) (i32.const 3))) (local.get $score))
                (f64.store (i32.add (local.get $sections) (i32.shl (local.get $last) (i32.const 3))) (local.get $rowid)))))
          (else
            (local.set $last (i32.add (local.get $last) (i32.const 1)))
            (i32.store (i32.add (local.get $pages) (i32.shl (local.get $last) (i32.const 2))) (local.get $page))
            (f64.store (i32.add (local.get $scores) (i32.shl (local.get $last) (i32.const 3))) (local.get $score))
            (f64.store (i32.add (local.get $sections) (i32.shl (local.get $last) (i32.const 3))) (local.get $rowid))))
        (br $next)))
    (i32.add (local.get $last) (i32.const 1)))
)
