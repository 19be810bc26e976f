
xla::ifrt::DType