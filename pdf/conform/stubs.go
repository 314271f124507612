package conform

func (c *checker) checkFile() {}
