
xla::ifrt::XlaCompileOptions
 