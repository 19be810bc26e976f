
xla::ifrt::DType