
xla::ifrt::XlaCompileOptions
 