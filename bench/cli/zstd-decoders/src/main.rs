//! `zstd-decoders FILE RUNS`: decodes FILE as a stream (64 KiB reads, as the command reads
//! 1 MiB chunks) RUNS times with each decoder and prints the median seconds and GB/s of
//! decompressed bytes. Used to choose the command's zstd crate (docs/cli.md).

use std::fs::File;
use std::io::{BufReader, Read};
use std::time::Instant;

fn drain(mut reader: impl Read) -> u64 {
    let mut buffer = vec![0u8; 1 << 20];
    let mut total = 0u64;
    loop {
        match reader.read(&mut buffer) {
            Ok(0) => return total,
            Ok(n) => total += n as u64,
            Err(error) => panic!("decode failed: {error}"),
        }
    }
}

fn median(mut times: Vec<f64>) -> f64 {
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("FILE");
    let runs: usize = args.next().map_or(5, |n| n.parse().expect("RUNS"));
    let open = || BufReader::with_capacity(1 << 16, File::open(&path).expect("open"));
    for name in ["zstd", "ruzstd"] {
        let mut times = Vec::new();
        let mut bytes = 0;
        for _ in 0..runs {
            let start = Instant::now();
            bytes = match name {
                "zstd" => drain(zstd::stream::read::Decoder::with_buffer(open()).expect("zstd")),
                _ => drain(ruzstd::decoding::StreamingDecoder::new(open()).expect("ruzstd")),
            };
            times.push(start.elapsed().as_secs_f64());
        }
        let seconds = median(times.clone());
        println!(
            "{name}: {bytes} bytes, median {seconds:.3} s of {runs} ({:.2} GB/s); runs {:?}",
            bytes as f64 / seconds / 1e9,
            times.iter().map(|t| (t * 1000.0).round() / 1000.0).collect::<Vec<_>>()
        );
    }
}
