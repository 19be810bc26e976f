
xla::ifrt::Shape
€