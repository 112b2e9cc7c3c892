#pragma once
// Answers a save dialog the way a user does: reads where it opened and the name it proposed,
// types a name into its file name field and presses Return (or cancels with no name). A message
// box that follows (a save that failed) is closed and its text kept.
#include <QApplication>
#include <QFileDialog>
#include <QFileInfo>
#include <QLineEdit>
#include <QMessageBox>
#include <QTimer>
#include <QtTest>
#include <functional>

namespace hips::test {

struct SaveDialogAnswer {
    QString folder, proposed;  // empty when no dialog opened
    QString warning;  // the text of a message box after it, if any
};

// `open` opens the dialog (and returns once it is closed); `typed` is what the user types.
inline SaveDialogAnswer answerSaveDialog(const std::function<void()>& open, const QString& typed) {
    SaveDialogAnswer answer;
    int steady = 0;  // polls the typed name has stayed in the field
    QTimer poll;
    QObject::connect(&poll, &QTimer::timeout, [&] {
        if (auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget())) {
            answer.warning = box->text();
            return box->reject();
        }
        auto* dialog = qobject_cast<QFileDialog*>(QApplication::activeModalWidget());
        if (!dialog) return;
        if (answer.folder.isEmpty()) {
            answer.folder = dialog->directory().absolutePath();
            answer.proposed = QFileInfo(dialog->selectedFiles().value(0)).fileName();
        }
        auto* name = dialog->findChild<QLineEdit*>("fileNameEdit");
        if (typed.isEmpty() || !name) return dialog->reject();
        // The dialog lists its folder in the background and, once listed, selects the proposed
        // file in its list, which then wins over the name typed (on a slow machine that is after
        // the typing): type again until what the dialog would accept is the name typed and has
        // stayed so for a few polls, then press Return.
        const QString wouldAccept = QFileInfo(dialog->selectedFiles().value(0)).fileName();
        if (name->text() != typed || !wouldAccept.startsWith(QFileInfo(typed).fileName())) {
            // Typed into the focused field, as a user does: only then does the dialog drop the
            // list's selection for the name typed.
            QApplication::setActiveWindow(dialog);
            name->setFocus(Qt::OtherFocusReason);
            name->clear();
            name->setText(typed);
            steady = 0;
        } else if (++steady >= 5) {
            QTest::keyClick(name, Qt::Key_Return);
        }
    });
    // Should Return go to the proposed (existing) file after all, the dialog asks whether to
    // replace it, inside the poll above: that question is answered No here (the file is never
    // overwritten), and the poll types the name again.
    QTimer guard;
    QObject::connect(&guard, &QTimer::timeout, [&] {
        auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
        if (box && qobject_cast<QFileDialog*>(box->parentWidget())) box->reject();
    });
    poll.start(20);
    guard.start(50);
    open();
    return answer;
}

}  // namespace hips::test
