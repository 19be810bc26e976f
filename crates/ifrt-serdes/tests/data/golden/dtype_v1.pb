
xla::ifrt::DType