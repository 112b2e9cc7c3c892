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
    QString warning;           // the text of a message box after it, if any
};

// `open` opens the dialog (and returns once it is closed); `typed` is what the user types.
inline SaveDialogAnswer answerSaveDialog(const std::function<void()>& open, const QString& typed) {
    SaveDialogAnswer answer;
    QTimer poll;
    QObject::connect(&poll, &QTimer::timeout, [&] {
        if (auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget())) {
            answer.warning = box->text();
            return box->reject();
        }
        auto* dialog = qobject_cast<QFileDialog*>(QApplication::activeModalWidget());
        if (!dialog || !answer.folder.isEmpty()) return;
        answer.folder = dialog->directory().absolutePath();
        answer.proposed = QFileInfo(dialog->selectedFiles().value(0)).fileName();
        auto* name = dialog->findChild<QLineEdit*>("fileNameEdit");
        if (typed.isEmpty() || !name) return dialog->reject();
        name->setText(typed);
        QTest::keyClick(name, Qt::Key_Return);
    });
    poll.start(20);
    open();
    return answer;
}

}  // namespace hips::test
