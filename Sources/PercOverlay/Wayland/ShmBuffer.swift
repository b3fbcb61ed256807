// One shared-memory ARGB8888 buffer of the overlay's surface: a memfd mapped here and in the compositor.
import CWayland
import Glibc

/// A wl_buffer over its own memfd. `busy` from attach until the compositor's `release`; `painted`
/// is what this buffer's pixels hold (cleared before the next paint, so a frame touches only the
/// boxes of its discs, not the whole output).
final class ShmBuffer {
    let proxy: OpaquePointer
    let width: Int
    let height: Int
    let pixels: UnsafeMutableBufferPointer<UInt32>
    var busy = false
    var painted: DiscRaster.Box?

    /// `onRelease` data: the owner, which finds the buffer by its proxy.
    init(shm: OpaquePointer, width: Int, height: Int, listener: UnsafePointer<wl_buffer_listener>,
         data: UnsafeMutableRawPointer) throws(WaylandError) {
        let stride = width * 4
        let size = stride * height
        let fd = percbridge_memfd_create("percbridge-overlay")
        guard fd >= 0 else { throw WaylandError("cannot create the overlay's shared-memory buffer (memfd_create: errno \(errno))") }
        defer { close(fd) }
        guard ftruncate(fd, off_t(size)) == 0 else {
            throw WaylandError("cannot size the overlay's \(width)×\(height) shared-memory buffer (ftruncate: errno \(errno))")
        }
        guard let map = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), map != MAP_FAILED else {
            throw WaylandError("cannot map the overlay's \(width)×\(height) shared-memory buffer (mmap: errno \(errno))")
        }
        let pool = wl_shm_create_pool(shm, fd, Int32(size))
        guard let buffer = wl_shm_pool_create_buffer(pool, 0, Int32(width), Int32(height), Int32(stride), WL_SHM_FORMAT_ARGB8888.rawValue) else {
            wl_shm_pool_destroy(pool)
            munmap(map, size)
            throw WaylandError("the compositor refused a \(width)×\(height) ARGB8888 buffer")
        }
        wl_shm_pool_destroy(pool)  // the buffer keeps the memory; the pool is not needed again
        proxy = buffer
        self.width = width
        self.height = height
        pixels = UnsafeMutableBufferPointer(start: map.assumingMemoryBound(to: UInt32.self), count: width * height)
        pixels.initialize(repeating: DiscRaster.transparent)
        wl_buffer_add_listener(buffer, listener, data)
    }

    deinit {
        wl_buffer_destroy(proxy)
        munmap(UnsafeMutableRawPointer(pixels.baseAddress), pixels.count * 4)
    }
}
