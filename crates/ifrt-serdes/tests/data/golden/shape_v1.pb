
xla::ifrt::Shape
€