//! `tflite-opver`: inspect, check and re-stamp `.tflite` models (being written).

fn main() {}
