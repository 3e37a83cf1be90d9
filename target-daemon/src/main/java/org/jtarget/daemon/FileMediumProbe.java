package org.jtarget.daemon;

import org.jtarget.scsi.lun.MediumWatch;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Objects;

/**
 * Whether a file store's path still names the file it opened: {@code stat(path)} compared with the
 * identity (device and inode, {@link BasicFileAttributes#fileKey}) recorded right after the store
 * opened. A deleted path or one now naming another file (an {@code mv} or a restore over it) means
 * the store's writes go to a file nobody will see again. Other stat failures (a permission change
 * on a parent folder) are not taken as proof: the store's own I/O errors still report those.
 */
final class FileMediumProbe implements MediumWatch.Probe {

    private final Path path;
    private final Object fileKey;

    FileMediumProbe(Path path, Object fileKey) {
        this.path = path;
        this.fileKey = fileKey;
    }

    /** Records the identity of a store's {@code file} now (just after the store opened it). */
    static FileMediumProbe of(Path file) throws IOException {
        return new FileMediumProbe(file, Files.readAttributes(file, BasicFileAttributes.class).fileKey());
    }

    @Override
    public String missing() {
        try {
            Object now = Files.readAttributes(path, BasicFileAttributes.class).fileKey();
            return fileKey == null || Objects.equals(fileKey, now) ? null : path + " was replaced by another file";
        } catch (NoSuchFileException e) {
            return path + " was deleted";
        } catch (IOException e) {
            return null;
        }
    }
}
